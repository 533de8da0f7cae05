// The processor this process runs on: its instruction-set features (cpuid on x86-64, the
// kernel's hardware capabilities on AArch64 and RISC-V, each checked against what the
// operating system enables) and its name. The runtime checks a model library's needed
// features against them before it runs any of its code; the compiler's host target
// (target/host.h) is made from them too. No compiler, no LLVM.
#pragma once

#include <string>
#include <vector>

namespace tessel::runtime {

struct HostCpu {
  /// LLVM's name for the processor ("znver4", "sapphirerapids"), "" where its family and
  /// model are not known.
  std::string name;
  /// The enabled features by LLVM's names ("avx2", "avx512f", "amx-int8", "neon", "v"),
  /// sorted.
  std::vector<std::string> features;
};

/// Detected once per process (a constant of the machine).
const HostCpu& host_cpu();

/// The features of the comma-separated list `needed` that this processor lacks, joined by
/// ", " ("" when it has them all).
std::string missing_cpu_features(const std::string& needed);

}  // namespace tessel::runtime

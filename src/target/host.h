// The machine this process runs on, as a Target: its features and CPU name from the
// processor itself (runtime/host_cpu.h: cpuid on x86-64, the kernel's hardware capabilities
// on AArch64 and RISC-V), and its cache sizes from the C library.
#pragma once

#include "target/target.h"

namespace tessel::target {

/// The host, detected once per process (a constant of the machine, not a setting).
const Target& host();

/// The architecture this program was built for.
Arch host_arch();

/// Whether code for `target` runs in this process: the host's architecture and no feature
/// the host lacks. The names of the missing features, comma-separated, go to `missing`.
bool runs_on_host(const Target& target, std::string* missing = nullptr);

}  // namespace tessel::target

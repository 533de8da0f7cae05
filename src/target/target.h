// Target: the machine code is generated for, as plain data.
//
// A Target is parsed once (parse_target.h) from a description such as "llvm",
// "llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-n1" or the shorthand "x86-64-avx2", and is
// then passed by const reference to everything that sizes code by the machine: default
// schedules and tuning templates (vector lanes, register budgets, cache sizes), the blocked
// layout's block rule, generated search spaces, the records' keys and the code generator.
// Nothing below the command line reads the host where a Target is given; host.h describes
// the host as a Target too. This library has no LLVM: the LLVM backend maps a Target to
// LLVM's triple, CPU and feature switches (codegen/llvm/llvm_target.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessel::target {

/// Which code generator a target is for. LLVM covers the CPUs today; C source, OpenCL and
/// NVPTX are later kinds.
enum class Kind { Llvm };

/// The instruction-set architecture, from the triple.
enum class Arch { X86_64, AArch64, RiscV64 };
const char* arch_name(Arch arch);

/// Sizes in bytes; 0 where the level does not exist or is not known.
struct CacheSizes {
  int64_t line = 64;
  int64_t l1d = 32 * 1024;
  int64_t l2 = 1024 * 1024;
  int64_t l3 = 0;
  bool operator==(const CacheSizes&) const = default;
};

struct Target {
  Kind kind = Kind::Llvm;
  Arch arch = Arch::X86_64;
  /// Normalised target triple, e.g. "x86_64-pc-linux-gnu", "aarch64-unknown-linux-gnu".
  std::string triple;
  /// CPU name as LLVM knows it, e.g. "znver4", "haswell", "x86-64-v3", "neoverse-n1".
  std::string cpu;
  /// The enabled instruction-set features, with everything they imply, sorted and without
  /// sign (LLVM's names: "avx2", "avx512f", "avx512vnni", "amx-int8", "neon", "dotprod", "v").
  std::vector<std::string> features;
  /// Width of the vector registers the schedules vectorize by (512 with AVX-512, 256 with
  /// AVX2, 128 for SSE, NEON and RISC-V's minimum VLEN).
  int vector_bits = 128;
  /// Architectural registers: vector (zmm/ymm/xmm, v0-v31) and general-purpose.
  int vector_registers = 16;
  int scalar_registers = 16;
  /// Vector fused multiply-add units per core and the widest vector each takes, in bits: the
  /// core's floating-point peak, an upper bound that measurements are checked against.
  int fma_units = 2;
  int fma_unit_bits = 512;
  CacheSizes cache;

  /// Whether `feature` is enabled (implied features count).
  bool has(std::string_view feature) const;
  /// Lanes of one vector register for elements of `element_bits` bits.
  int lanes(int element_bits) const { return vector_bits / element_bits; }
  /// float32 lanes of one vector register (16 with AVX-512, 8 with AVX2, else 4).
  int float_lanes() const { return lanes(32); }
  /// Floating-point operations one core can do per cycle on `element_bits` elements, a
  /// multiply-add counting two: 2 x fma_units x the lanes of min(fma_unit_bits, vector_bits).
  int64_t peak_flops_per_cycle(int element_bits) const;
  /// A description that parses back to this target: "llvm -mtriple=... -mcpu=..." with
  /// "-mattr=+a,-b" for the features that differ from the CPU's own.
  std::string to_string() const;

  bool operator==(const Target&) const = default;
};

}  // namespace tessel::target

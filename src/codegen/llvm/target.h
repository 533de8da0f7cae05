// Target: which machine the LLVM backend generates code for.
//
// Parsed from a description string in the style of TVM targets:
//   "llvm"                                   the host (its CPU name and features)
//   "llvm -mcpu=native"                      the same, explicitly
//   "llvm -mcpu=skylake-avx512"              the host triple, another CPU
//   "llvm -mtriple=aarch64-linux-gnu -mcpu=generic"   cross compilation (objects only)
//   "llvm -mattr=+avx2,-avx512f"             feature switches appended to the CPU's
#pragma once

#include <string>

namespace tessel::codegen {

struct Target {
  /// LLVM target triple, e.g. "x86_64-pc-linux-gnu".
  std::string triple;
  /// LLVM CPU name, e.g. "znver3", "skylake-avx512", "generic".
  std::string cpu;
  /// Comma-separated LLVM feature switches, e.g. "+avx2,+fma,-avx512f".
  std::string features;

  /// The machine this process runs on (computed once).
  static const Target& host();
  /// Parses a description string (see the top of this file). Throws CompileError for a
  /// string that does not start with "llvm", an unknown option, an unknown triple or CPU,
  /// or "-mcpu=native" with a foreign triple.
  static Target parse(const std::string& text);
  /// The description string: "llvm -mtriple=... -mcpu=... [-mattr=...]".
  std::string to_string() const;
  /// Whether code for this target runs in this process (same architecture as the host):
  /// required for the JIT and for linking shared libraries.
  bool runs_on_host() const;
  /// float32 lanes of the target's widest vector unit, from its CPU and feature switches:
  /// x86-64 16 with AVX-512F, 8 with AVX2, else 4; other architectures 4.
  int float_lanes() const;
};

}  // namespace tessel::codegen

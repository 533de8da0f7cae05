// parse_target: a target description -> a Target, once, at the boundary (command line,
// library API); everything below takes the Target.
//
//   "" or "llvm"                                  the host (host.h)
//   "llvm -mcpu=native"                           the same
//   "llvm -mcpu=haswell"                          the host's triple, another CPU
//   "llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-n1"   another architecture
//   "llvm -mcpu=znver4 -mattr=-avx512f,+avxvnni"  feature switches on top of the CPU's
//   "x86-64-avx2", "x86-64-avx512", "x86-64-v2|v3|v4", "aarch64", "riscv64"
//                                                 shorthands, which options may follow
#pragma once

#include <string>

#include "target/target.h"

namespace tessel::target {

/// Parses `text` (see above). Throws CompileError naming the description and what is wrong
/// in it: an unknown kind, option, triple, architecture, CPU or feature, or "-mcpu=native"
/// with another architecture's triple.
Target parse_target(const std::string& text);

/// The shorthands and what each stands for, for help texts.
std::string target_shorthands();

}  // namespace tessel::target

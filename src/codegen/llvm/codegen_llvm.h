// LLVM code generation for the CPU: loop IR PrimFuncs -> LLVM IR -> machine code.
//
// Input contract (what the pass pipeline delivers): every buffer is flattened to one
// dimension (each Load/Store has one index); loops of any kind (Vectorized / Unrolled
// loops still present run as serial loops; ThreadBinding is a CompileError); vector
// expressions; Allocate in Local (stack) or Global (runtime workspace) scope. Math calls
// of any type: float32 and 16-bit exp, log, tanh, erf and sigmoid go through
// tir::expand_math here when the pipeline has not expanded them.
//
// Output ABI, per PrimFunc: `extern "C" int32_t <name>(void** args)`, where args[i] is the
// data pointer (64-byte aligned) of params[i]; returns 0 on success or a tessel_status
// (runtime/tessel_runtime.h). Parameters are assumed not to alias each other.
//
// JIT compilation lives in jit.h, object files and shared libraries in aot.h.
#pragma once

#include <string>
#include <vector>

#include "ir/stmt.h"
#include "target/host.h"

namespace tessel::codegen {

/// LLVM's feature switches for `target`: "+f" for each feature it has and "-f" for each
/// other feature tessel knows (so a CPU's own features can be switched off), plus what LLVM
/// needs besides (512-bit registers with AVX-512).
std::string llvm_features(const target::Target& target);

/// The LLVM IR of `funcs` for `target` as text, after the -O3 pipeline when `optimize`.
std::string emit_llvm_ir(const std::vector<ir::PrimFunc>& funcs,
                         const target::Target& target = target::host(), bool optimize = true);

/// The optimised assembly of `funcs` for `target` (any registered target) as text.
std::string emit_assembly(const std::vector<ir::PrimFunc>& funcs,
                          const target::Target& target = target::host());

}  // namespace tessel::codegen

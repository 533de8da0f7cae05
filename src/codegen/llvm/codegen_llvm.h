// LLVM code generation for the CPU: loop IR PrimFuncs -> LLVM IR -> machine code.
//
// Input contract (what the pass pipeline delivers): every buffer is flattened to one
// dimension (each Load/Store has one index); loops of any kind (Vectorized / Unrolled
// loops still present run as serial loops; ThreadBinding is a CompileError); vector
// expressions; Allocate in Local (stack) or Global (runtime workspace) scope.
//
// Output ABI, per PrimFunc: `extern "C" int32_t <name>(void** args)`, where args[i] is the
// data pointer (64-byte aligned) of params[i]; returns 0 on success or a tessel_status
// (runtime/tessel_runtime.h). Parameters are assumed not to alias each other.
//
// JIT compilation lives in jit.h, object files and shared libraries in aot.h.
#pragma once

#include <string>
#include <vector>

#include "codegen/llvm/target.h"
#include "ir/stmt.h"

namespace tessel::codegen {

/// The LLVM IR of `funcs` for `target` as text, after the -O3 pipeline when `optimize`.
std::string emit_llvm_ir(const std::vector<ir::PrimFunc>& funcs,
                         const Target& target = Target::host(), bool optimize = true);

/// The optimised assembly of `funcs` for `target` (any registered target) as text.
std::string emit_assembly(const std::vector<ir::PrimFunc>& funcs,
                          const Target& target = Target::host());

}  // namespace tessel::codegen

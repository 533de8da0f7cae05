// Internal: builds the LLVM module of a list of PrimFuncs (shared by the text emitters,
// the JIT and ahead-of-time compilation).
#pragma once

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <vector>

#include "ir/stmt.h"

namespace tessel::codegen {

/// Generates `funcs` into a new module for `machine`'s target, verifies it and, when
/// `optimize`, runs the -O3 pipeline. Throws CompileError for unsupported IR or bad
/// function names (empty, not a C identifier, duplicated).
std::unique_ptr<llvm::Module> build_llvm_module(const std::vector<ir::PrimFunc>& funcs,
                                                llvm::LLVMContext& context,
                                                llvm::TargetMachine& machine, bool optimize = true);

}  // namespace tessel::codegen

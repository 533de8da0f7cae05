// Internal: LLVM initialisation, target machines, the optimisation pipeline and machine
// code emission. Only files of src/codegen/llvm include this (it pulls in LLVM headers).
#pragma once

#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <string>

#include "target/host.h"

namespace tessel::codegen {

/// Registers LLVM's targets once per process (thread-safe).
void initialize_llvm();

/// A target machine for `target` (position-independent code, -O3 code generation). Throws
/// CompileError when LLVM does not know the triple or the CPU.
std::unique_ptr<llvm::TargetMachine> create_target_machine(const target::Target& target);

/// Runs the -O3 pipeline of the new pass manager (loop and SLP vectorisation on).
void optimize_module(llvm::Module& module, llvm::TargetMachine& machine);

/// Emits `module` as assembly text or as an object file to `out` (the module is cloned,
/// so it stays usable).
std::string emit_assembly_text(const llvm::Module& module, llvm::TargetMachine& machine);
void emit_object(const llvm::Module& module, llvm::TargetMachine& machine,
                 llvm::raw_pwrite_stream& out);

}  // namespace tessel::codegen

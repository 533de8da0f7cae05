// Ahead-of-time compilation: PrimFuncs -> object file or shared library.
//
// A shared library exports one `int32_t <name>(void** args)` per PrimFunc and leaves the
// runtime's entry points undefined: runtime::Module::load (runtime/module.h) binds them
// to the loading process's runtime.
#pragma once

#include <string>
#include <vector>

#include "ir/stmt.h"
#include "target/host.h"

namespace tessel::codegen {

/// Compiles `funcs` into a relocatable, position-independent object file at `path`; any
/// registered target works (e.g. "llvm -mtriple=aarch64-linux-gnu"). Throws CompileError
/// for unsupported IR or a file that cannot be written.
void emit_object_file(const std::vector<ir::PrimFunc>& funcs, const target::Target& target,
                      const std::string& path);

/// Compiles `funcs` and links them with the system `cc -shared` into `path`, together with
/// `extra_inputs` (further files `cc` accepts: objects, assembly sources). The target must
/// run on this machine. Throws CompileError when linking fails, with the linker's output.
void emit_shared_library(const std::vector<ir::PrimFunc>& funcs, const target::Target& target,
                         const std::string& path,
                         const std::vector<std::string>& extra_inputs = {});

}  // namespace tessel::codegen

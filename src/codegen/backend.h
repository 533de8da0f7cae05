// Backend: the interface every code generator implements. LLVM is the one today (x86-64,
// AArch64 and RISC-V CPUs); C source, OpenCL C and NVPTX are to implement the same. Lowering
// and the loop-IR passes are target-independent and done before a backend is called: a
// backend only emits the loop IR it is given (see codegen/llvm/codegen_llvm.h for the IR
// contract and the kernel ABI) as code for the target.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "ir/stmt.h"
#include "runtime/tessel_runtime.h"
#include "target/target.h"

namespace tessel::codegen {

/// Kernels compiled into this process, callable while the module lives.
class LoadedModule {
 public:
  virtual ~LoadedModule() = default;
  /// The kernel `name`; CompileError when no function of that name was compiled.
  virtual tessel_kernel get_function(const std::string& name) const = 0;
};

/// Where a backend writes what it generated, for inspection (both optional).
struct EmitListing {
  std::ostream* ir_out = nullptr;   ///< the backend's own IR (LLVM IR, C source)
  std::ostream* asm_out = nullptr;  ///< the machine code as assembly
};

class Backend {
 public:
  virtual ~Backend() = default;
  /// A short name: "llvm".
  virtual const char* name() const = 0;
  /// `funcs` compiled into this process. CompileError for IR the backend does not support
  /// or a target whose code cannot run here (naming what the host lacks).
  virtual std::unique_ptr<LoadedModule> load_in_process(const std::vector<ir::PrimFunc>& funcs,
                                                        const target::Target& target,
                                                        const EmitListing& listing = {}) const = 0;
  /// `funcs` as a relocatable object file at `path` (any target the backend knows).
  virtual void emit_object_file(const std::vector<ir::PrimFunc>& funcs,
                                const target::Target& target, const std::string& path) const = 0;
  /// `funcs` linked into the shared library `path` with `extra_inputs` (objects, assembly
  /// sources); the target must be of this machine's architecture.
  virtual void emit_shared_library(const std::vector<ir::PrimFunc>& funcs,
                                   const target::Target& target, const std::string& path,
                                   const std::vector<std::string>& extra_inputs = {}) const = 0;
  /// The generated code as text (assembly for a machine-code backend).
  virtual std::string emit_text(const std::vector<ir::PrimFunc>& funcs,
                                const target::Target& target) const = 0;
};

/// The backend that generates code for `target` (by its kind).
const Backend& backend_for(const target::Target& target);

}  // namespace tessel::codegen

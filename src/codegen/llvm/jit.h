// JitModule: in-process compilation of PrimFuncs with LLVM's ORC LLJIT.
//
// Each JitModule owns its LLVM context and JIT instance, so several can be created (and
// used) concurrently from different threads, as tuning does. The compiled kernels call the
// runtime (tessel_parallel_for, tessel_workspace_alloc/free) through absolute symbols bound
// to this process's runtime library; libm and libc symbols resolve from the process.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "codegen/backend.h"
#include "ir/stmt.h"
#include "runtime/tessel_runtime.h"
#include "target/host.h"

namespace tessel::codegen {

struct JitOptions {
  /// Must run on this machine (target::runs_on_host); e.g. "llvm -mattr=-avx512f".
  target::Target target = target::host();
  /// When set, receives the optimised LLVM IR of the module.
  std::ostream* ir_out = nullptr;
  /// When set, receives the assembly of the module.
  std::ostream* asm_out = nullptr;
};

class JitModule final : public LoadedModule {
 public:
  /// Compiles `funcs` (see codegen_llvm.h for the IR contract and the kernel ABI).
  /// Throws CompileError for unsupported IR or a target that cannot run here.
  explicit JitModule(const std::vector<ir::PrimFunc>& funcs, const JitOptions& options = {});
  ~JitModule();
  JitModule(JitModule&&) noexcept;
  JitModule& operator=(JitModule&&) noexcept;

  /// The compiled kernel `name`; valid while this module lives. Throws CompileError when
  /// no function of that name was compiled.
  tessel_kernel get_function(const std::string& name) const override;
  bool has_function(const std::string& name) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessel::codegen

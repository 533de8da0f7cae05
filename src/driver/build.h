// build: the one entry point from a scheduled tensor expression to native code.
//
//   lower (TE + schedule -> loop IR) -> tir passes -> LLVM (JIT for the host)
//
// The result is a Kernel that keeps its JIT module alive and is called with one data
// pointer per argument tensor, in the order given to build().
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "ir/stmt.h"
#include "runtime/tessel_runtime.h"
#include "schedule/schedule.h"
#include "target/host.h"
#include "tir/pipeline.h"

namespace tessel::codegen {
class LoadedModule;
}

namespace tessel::driver {

struct BuildOptions {
  /// The machine the kernels are generated for (target/parse_target.h makes one from a
  /// description such as "llvm -mcpu=haswell" or "x86-64-avx2").
  target::Target target = target::host();
  /// Printing, timing, verification and early stop of the loop-IR passes.
  tir::PassOptions passes;
  /// When set, receive the optimised LLVM IR / the assembly of the kernel.
  std::ostream* llvm_ir_out = nullptr;
  std::ostream* asm_out = nullptr;
};

/// Wall-clock milliseconds of each phase of build().
struct BuildTimes {
  double lower_ms = 0;
  double passes_ms = 0;
  double codegen_ms = 0;
  double total_ms() const { return lower_ms + passes_ms + codegen_ms; }
};

/// Kernels assume every argument's data is aligned to this many bytes (runtime::NDArray is).
inline constexpr size_t kArgumentAlignment = 64;

/// A compiled operator.
class Kernel {
 public:
  /// Runs the kernel; args[i] is the data of the i-th argument tensor, 64-byte aligned.
  /// Throws std::invalid_argument for a wrong argument count or a misaligned argument, and
  /// std::runtime_error with the runtime's message when the kernel reports a failure.
  void run(const std::vector<void*>& args) const;
  const std::string& name() const { return name_; }
  /// The loop IR straight out of lowering, and after the passes.
  const ir::PrimFunc& lowered() const { return lowered_; }
  const ir::PrimFunc& optimized() const { return optimized_; }
  const BuildTimes& times() const { return times_; }

 private:
  friend Kernel build(const schedule::Schedule&, const std::vector<te::Tensor>&,
                      const std::string&, const BuildOptions&);
  std::string name_;
  ir::PrimFunc lowered_;
  ir::PrimFunc optimized_;
  BuildTimes times_;
  std::shared_ptr<codegen::LoadedModule> module_;
  tessel_kernel function_ = nullptr;
};

/// Lowers, optimises and JIT-compiles `schedule` into a kernel named `name` whose
/// parameters are `args` (inputs and outputs). Throws CompileError for bad input.
Kernel build(const schedule::Schedule& schedule, const std::vector<te::Tensor>& args,
             const std::string& name, const BuildOptions& options = {});

/// Lowers, optimises and compiles `schedule` ahead of time into the shared library `path`,
/// exporting `int32_t name(void** args)`; load it with runtime::Module (no LLVM needed).
/// The target must run on this machine (the library is linked with the system `cc`).
void export_library(const schedule::Schedule& schedule, const std::vector<te::Tensor>& args,
                    const std::string& name, const std::string& path,
                    const BuildOptions& options = {});

/// Lowers and optimises without generating code (for printing and ahead-of-time builds).
ir::PrimFunc lower_and_optimize(const schedule::Schedule& schedule,
                                const std::vector<te::Tensor>& args, const std::string& name,
                                const tir::PassOptions& passes = {});

}  // namespace tessel::driver

// build(): lower, run the passes, JIT-compile; times each phase.
#include "driver/build.h"

#include <chrono>
#include <cstdint>
#include <stdexcept>

#include "codegen/backend.h"
#include "lower/lower.h"

namespace tessel::driver {
namespace {

double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
      .count();
}

}  // namespace

void Kernel::run(const std::vector<void*>& args) const {
  if (args.size() != lowered_.params.size())
    throw std::invalid_argument("kernel '" + name_ + "' takes " +
                                std::to_string(lowered_.params.size()) + " arguments, got " +
                                std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    if (reinterpret_cast<uintptr_t>(args[i]) % kArgumentAlignment != 0)
      throw std::invalid_argument("kernel '" + name_ + "': argument " + std::to_string(i) + " ('" +
                                  lowered_.params[i]->name + "') is not " +
                                  std::to_string(kArgumentAlignment) +
                                  "-byte aligned (use runtime::NDArray)");
  }
  std::vector<void*> data = args;
  int32_t status = function_(data.data());
  if (status != TESSEL_OK)
    throw std::runtime_error("kernel '" + name_ + "' failed with status " +
                             std::to_string(status) + ": " + tessel_last_error());
}

ir::PrimFunc lower_and_optimize(const schedule::Schedule& schedule,
                                const std::vector<te::Tensor>& args, const std::string& name,
                                const tir::PassOptions& passes) {
  return tir::run_passes(lower::lower(schedule, args, name), passes);
}

void export_library(const schedule::Schedule& schedule, const std::vector<te::Tensor>& args,
                    const std::string& name, const std::string& path,
                    const BuildOptions& options) {
  ir::PrimFunc func = lower_and_optimize(schedule, args, name, options.passes);
  codegen::backend_for(options.target).emit_shared_library({func}, options.target, path);
}

Kernel build(const schedule::Schedule& schedule, const std::vector<te::Tensor>& args,
             const std::string& name, const BuildOptions& options) {
  Kernel kernel;
  kernel.name_ = name;
  auto start = std::chrono::steady_clock::now();
  kernel.lowered_ = lower::lower(schedule, args, name);
  kernel.times_.lower_ms = elapsed_ms(start);

  start = std::chrono::steady_clock::now();
  kernel.optimized_ = tir::run_passes(kernel.lowered_, options.passes);
  kernel.times_.passes_ms = elapsed_ms(start);

  start = std::chrono::steady_clock::now();
  kernel.module_ = codegen::backend_for(options.target)
                       .load_in_process({kernel.optimized_}, options.target,
                                        {options.llvm_ir_out, options.asm_out});
  kernel.function_ = kernel.module_->get_function(name);
  kernel.times_.codegen_ms = elapsed_ms(start);
  return kernel;
}

}  // namespace tessel::driver

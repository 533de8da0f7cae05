// export_model: writes a compiled model library — ONE shared library holding the kernels,
// the weights and the execution plan — that runtime::Model::load runs without the compiler.
//
// Layout of the library (symbol names in runtime/model.h):
//   the kernels                one `int32_t name(void** args)` per PrimFunc (from LLVM)
//   tessel_model_plan          serialize_plan(plan)          } in .rodata, from a small
//   tessel_model_plan_size     uint64_t                      } assembly file that .incbin's
//   tessel_model_weights       the weights, 64-byte aligned  } the bytes (no LLVM constants:
//   tessel_model_weights_size  uint64_t                      } ResNet-50 has ~100 MB)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "driver/build.h"
#include "ir/stmt.h"
#include "runtime/model_plan.h"

namespace tessel::driver {

/// Compiles `kernels` and links them with `plan` and `weights` (plan.weights_bytes bytes)
/// into the shared library `path`, for options.target (which must run on this machine).
/// Throws CompileError for an invalid plan, a step whose kernel is not among `kernels`, a
/// weights size that differs from the plan's, or a failed link (with the linker's output).
void export_model(const std::vector<ir::PrimFunc>& kernels, const runtime::ModelPlan& plan,
                  const std::vector<uint8_t>& weights, const std::string& path,
                  const BuildOptions& options = {});

}  // namespace tessel::driver

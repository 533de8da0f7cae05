// What schedules ask of a stage's operation (see stage_util.h).
#include "schedules/stage_util.h"

namespace tessel::schedules {

int64_t extent_of(const ir::IterVar& iv) {
  const int64_t* extent = ir::as_const_int(iv.extent);
  return extent ? *extent : 0;
}

bool is_float32(const te::OperationNode& op) {
  for (ir::DataType t : op.output_dtypes)
    if (t != ir::DataType::Float(32)) return false;
  return true;
}

bool unconditional_reduction(const te::OperationNode& op) {
  const auto* reduce = op.bodies.empty() ? nullptr : op.bodies[0].as<ir::ReduceNode>();
  return reduce && (!reduce->condition.defined() || ir::is_one(reduce->condition));
}

std::vector<std::string> spatial_roots(const schedule::Stage& stage) {
  return {stage.roots.begin(), stage.roots.begin() + static_cast<int64_t>(stage.op->axis.size())};
}

std::vector<std::string> reduction_roots(const schedule::Stage& stage) {
  return {stage.roots.begin() + static_cast<int64_t>(stage.op->axis.size()), stage.roots.end()};
}

}  // namespace tessel::schedules

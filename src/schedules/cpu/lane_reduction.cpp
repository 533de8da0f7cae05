// Reductions factored over vector lanes (see lane_reduction.h).
#include "schedules/cpu/lane_reduction.h"

#include <vector>

#include "schedules/stage_util.h"

namespace tessel::schedules {

bool factorable_over_lanes(const te::OperationNode& op, int64_t lanes) {
  if (!op.has_reduction() || op.num_outputs() != 1 || !is_float32(op) ||
      !unconditional_reduction(op))
    return false;
  int64_t innermost = op.axis.empty() ? 1 : extent_of(op.axis.back());
  return innermost < lanes && extent_of(op.reduce_axis.back()) >= 2 * lanes;
}

std::string factor_over_lanes(schedule::Schedule& s, const std::string& stage, int64_t lanes) {
  const schedule::Stage& st = s.stage(stage);
  te::Tensor result = st.op->output(0);
  int axes = static_cast<int>(st.op->axis.size());
  auto [outer, inner] = s.split(stage, st.roots.back(), lanes);
  te::Tensor rf = s.rfactor(result, inner, axes);
  std::vector<std::string> order = reduction_roots(s.stage(rf));
  order.push_back(inner);
  s.reorder(rf, order);
  s.vectorize(rf, inner);
  return s.stage(rf).name;
}

}  // namespace tessel::schedules

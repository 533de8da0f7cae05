// Slice: a strided window of the input, per axis [start, end) with a step (negative steps
// walk backwards). Before opset 10 starts / ends / axes are attributes (step 1); from
// opset 10 they and the steps are value inputs.
#include <algorithm>
#include <limits>
#include <numeric>

#include "ops/shape/shape_ops.h"

namespace tessel::ops::shape {

namespace {

/// Per input axis: the first position read, the step, and the output extent.
struct SliceLayout {
  std::vector<int64_t> starts, steps, shape;
};

/// The starts, ends, axes and steps lists as the node gives them.
struct SliceParams {
  std::vector<int64_t> starts, ends, axes, steps;
};

SliceParams slice_params(const OpContext& ctx) {
  SliceParams p;
  bool inputs = ctx.opset() >= 10;
  p.starts = inputs ? ctx.input_ints(1) : ctx.attr_ints("starts");
  p.ends = inputs ? ctx.input_ints(2) : ctx.attr_ints("ends");
  if (inputs ? ctx.has_input(3) : ctx.has_attr("axes")) {
    p.axes = inputs ? ctx.input_ints(3) : ctx.attr_ints("axes");
  } else {
    p.axes.resize(p.starts.size());
    std::iota(p.axes.begin(), p.axes.end(), 0);
  }
  if (inputs && ctx.has_input(4)) {
    p.steps = ctx.input_ints(4);
  } else {
    p.steps.assign(p.starts.size(), 1);
  }
  if (p.ends.size() != p.starts.size() || p.axes.size() != p.starts.size() ||
      p.steps.size() != p.starts.size())
    ctx.fail("starts, ends, axes and steps must have equal lengths, found " +
             std::to_string(p.starts.size()) + ", " + std::to_string(p.ends.size()) + ", " +
             std::to_string(p.axes.size()) + ", " + std::to_string(p.steps.size()));
  return p;
}

SliceLayout slice_layout(const OpContext& ctx) {
  std::vector<int64_t> in = ctx.input_shape(0);
  SliceParams p = slice_params(ctx);
  std::vector<int64_t> axes = normalize_axes(ctx, p.axes, static_cast<int64_t>(in.size()), "axis");
  SliceLayout layout{std::vector<int64_t>(in.size(), 0), std::vector<int64_t>(in.size(), 1), in};
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t axis = axes[k], dim = in[axis], step = p.steps[k];
    if (step == 0)
      ctx.fail("step " + std::to_string(k) + " (axis " + std::to_string(axis) + ") is 0");
    layout.steps[axis] = step;
    if (dim == 0) continue;  // nothing to select; the extent stays 0
    int64_t start = p.starts[k] < 0 ? p.starts[k] + dim : p.starts[k];
    int64_t end = p.ends[k] < 0 ? p.ends[k] + dim : p.ends[k];
    int64_t extent = 0;
    // Out-of-range positions clamp to the first / last element the direction allows.
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      if (end > start) extent = (end - start - 1) / step + 1;
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      int64_t stride =
          step == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : -step;
      if (start > end) extent = (start - end - 1) / stride + 1;
    }
    layout.starts[axis] = start;
    layout.shape[axis] = extent;
  }
  return layout;
}

OpDef slice_op() {
  OpDef def;
  def.name = "Slice";
  def.since_version = 1;
  def.attributes = {{"starts", graph::AttrKind::Ints, {}},
                    {"ends", graph::AttrKind::Ints, {}},
                    {"axes", graph::AttrKind::Ints, {}}};
  def.pattern = PatternKind::Injective;
  def.value_inputs = {1, 2, 3, 4};
  def.infer = [](const OpContext& ctx) { return like_input(ctx, slice_layout(ctx).shape); };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& inputs) {
    SliceLayout layout = slice_layout(ctx);
    auto index = [&](const std::vector<te::Var>& v) {
      std::vector<ir::Expr> at;
      for (size_t d = 0; d < v.size(); ++d) at.push_back(layout.starts[d] + v[d] * layout.steps[d]);
      return at;
    };
    return std::vector<te::Tensor>{gather_input(inputs[0], layout.shape, index, "slice")};
  };
  def.windows = [](const OpContext& ctx) -> std::optional<std::vector<int64_t>> {
    SliceLayout layout = slice_layout(ctx);
    std::optional<int64_t> offset =
        contiguous_window(ctx.input_shape(0), layout.starts, layout.steps, layout.shape);
    if (!offset) return std::nullopt;
    return std::vector<int64_t>{*offset};
  };
  return def;
}

}  // namespace

void register_slice_ops(OpRegistry& registry) {
  registry.add(slice_op());
}

}  // namespace tessel::ops::shape

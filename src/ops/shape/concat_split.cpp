// Concat (join inputs along an axis) and Split (cut the input along an axis).
#include "ops/op_util.h"
#include "ops/shape/shape_ops.h"
#include "te/compute.h"

namespace tessel::ops::shape {

namespace {

using graph::AttrKind;

// ---- Concat ------------------------------------------------------------------------------

struct ConcatLayout {
  int64_t axis = 0;
  std::vector<int64_t> shape;
  /// Per input: its first position along the axis in the output, and its extent there.
  std::vector<int64_t> offsets, extents;
};

ConcatLayout concat_layout(const OpContext& ctx) {
  if (ctx.num_inputs() == 0) ctx.fail("at least one input is required");
  ConcatLayout layout;
  layout.shape = ctx.input_shape(0);
  auto rank = static_cast<int64_t>(layout.shape.size());
  // Before opset 4 the axis was optional, 1 by default.
  if (!ctx.has_attr("axis") && ctx.opset() >= 4) ctx.fail("attribute 'axis' is required");
  int64_t axis = ctx.has_attr("axis") ? ctx.attr_int("axis") : 1;
  layout.axis = normalize_axis(ctx, axis, rank, "attribute 'axis'");
  int64_t total = 0;
  for (size_t k = 0; k < ctx.num_inputs(); ++k) {
    std::vector<int64_t> shape = ctx.input_shape(k);
    bool compatible = ctx.input_type(k).dtype == ctx.input_type(0).dtype &&
                      static_cast<int64_t>(shape.size()) == rank;
    for (int64_t d = 0; compatible && d < rank; ++d)
      compatible = d == layout.axis || shape[d] == layout.shape[d];
    if (!compatible)
      ctx.fail("input " + std::to_string(k) + " of type " + ctx.input_type(k).to_string() +
               " cannot be joined on axis " + std::to_string(layout.axis) +
               " with input 0 of type " + ctx.input_type(0).to_string());
    layout.offsets.push_back(total);
    layout.extents.push_back(shape[layout.axis]);
    total += shape[layout.axis];
  }
  layout.shape[layout.axis] = total;
  check_shape(ctx, layout.shape, "the output");
  return layout;
}

/// Output element v: the input whose range along the axis holds v[axis]. Select evaluates
/// both arms, so each input's position is clamped into its own range.
ir::Expr concat_body(const ConcatLayout& layout, const std::vector<te::Tensor>& inputs,
                     const std::vector<te::Var>& v) {
  ir::Expr result;
  ir::Expr position = v[layout.axis];
  for (size_t k = inputs.size(); k-- > 0;) {
    int64_t offset = layout.offsets[k], extent = layout.extents[k];
    if (extent == 0) continue;
    ir::Expr local = position - offset;
    if (offset > 0) local = ir::max(local, ir::Expr(int64_t{0}));
    if (result.defined()) local = ir::min(local, ir::Expr(extent - 1));
    std::vector<ir::Expr> at(v.begin(), v.end());
    at[layout.axis] = local;
    ir::Expr value = inputs[k](at);
    result = result.defined() ? ir::select(position < offset + extent, value, result) : value;
  }
  // Every input is empty along the axis: so is the output, and the body is never run.
  return result.defined() ? result : ir::make_const(inputs[0].dtype(), 0);
}

OpDef concat_op() {
  OpDef def;
  def.name = "Concat";
  def.since_version = 1;
  def.attributes = {{"axis", AttrKind::Int, std::nullopt}};
  def.pattern = PatternKind::Injective;
  def.infer = [](const OpContext& ctx) { return like_input(ctx, concat_layout(ctx).shape); };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& inputs) {
    ConcatLayout layout = concat_layout(ctx);
    auto body = [&](const std::vector<te::Var>& v) { return concat_body(layout, inputs, v); };
    return std::vector<te::Tensor>{te::compute(shape_exprs(layout.shape), body, "concat")};
  };
  return def;
}

// ---- Split -------------------------------------------------------------------------------

struct SplitLayout {
  int64_t axis = 0;
  /// Extent of each output along the axis.
  std::vector<int64_t> sizes;
};

SplitLayout split_layout(const OpContext& ctx) {
  std::vector<int64_t> in = ctx.input_shape(0);
  SplitLayout layout;
  layout.axis = normalize_axis(ctx, ctx.attr_int("axis"), static_cast<int64_t>(in.size()),
                               "attribute 'axis'");
  int64_t extent = in[layout.axis];
  auto outputs = static_cast<int64_t>(ctx.node().outputs.size());
  if (outputs == 0) ctx.fail("at least one output is required");
  if (auto split = ints_from_attr_or_input(ctx, "split", 1, 13)) {
    std::string given =
        (ctx.opset() >= 13 ? "input 'split' " : "attribute 'split' ") + shape_text(*split);
    if (static_cast<int64_t>(split->size()) != outputs)
      ctx.fail(given + " has " + std::to_string(split->size()) + " entries for " +
               std::to_string(outputs) + " outputs");
    int64_t total = 0;
    for (int64_t size : *split) {
      if (size < 0) ctx.fail(given + " has a negative entry");
      total += size;
    }
    if (total != extent)
      ctx.fail(given + " sums to " + std::to_string(total) + ", but axis " +
               std::to_string(layout.axis) + " has extent " + std::to_string(extent));
    layout.sizes = *split;
  } else {
    if (extent % outputs != 0)
      ctx.fail("axis " + std::to_string(layout.axis) + " of extent " + std::to_string(extent) +
               " cannot be split into " + std::to_string(outputs) +
               " equal parts (a smaller last part needs opset 18)");
    layout.sizes.assign(static_cast<size_t>(outputs), extent / outputs);
  }
  return layout;
}

std::vector<int64_t> split_shape(const OpContext& ctx, const SplitLayout& layout, size_t k) {
  std::vector<int64_t> shape = ctx.input_shape(0);
  shape[layout.axis] = layout.sizes[k];
  return shape;
}

OpDef split_op() {
  OpDef def;
  def.name = "Split";
  def.since_version = 2;
  def.attributes = {{"axis", AttrKind::Int, graph::Attribute::of_int(0)},
                    {"split", AttrKind::Ints, {}}};
  def.pattern = PatternKind::Injective;
  def.value_inputs = {1};
  def.infer = [](const OpContext& ctx) {
    SplitLayout layout = split_layout(ctx);
    std::vector<graph::TensorType> types;
    for (size_t k = 0; k < layout.sizes.size(); ++k)
      types.push_back(graph::TensorType::of(ctx.input_type(0).dtype, split_shape(ctx, layout, k)));
    return types;
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& inputs) {
    SplitLayout layout = split_layout(ctx);
    std::vector<te::Tensor> outputs;
    int64_t offset = 0;
    for (size_t k = 0; k < layout.sizes.size(); ++k) {
      auto index = [&](const std::vector<te::Var>& v) {
        std::vector<ir::Expr> at(v.begin(), v.end());
        at[layout.axis] = v[layout.axis] + offset;
        return at;
      };
      outputs.push_back(
          gather_input(inputs[0], split_shape(ctx, layout, k), index, "split" + std::to_string(k)));
      offset += layout.sizes[k];
    }
    return outputs;
  };
  def.windows = [](const OpContext& ctx) -> std::optional<std::vector<int64_t>> {
    SplitLayout layout = split_layout(ctx);
    std::vector<int64_t> in = ctx.input_shape(0), starts(in.size(), 0), steps(in.size(), 1);
    std::vector<int64_t> offsets;
    for (size_t k = 0; k < layout.sizes.size(); ++k) {
      std::optional<int64_t> offset =
          contiguous_window(in, starts, steps, split_shape(ctx, layout, k));
      if (!offset) return std::nullopt;
      offsets.push_back(*offset);
      starts[layout.axis] += layout.sizes[k];
    }
    return offsets;
  };
  return def;
}

}  // namespace

void register_concat_split_ops(OpRegistry& registry) {
  registry.add(concat_op());
  registry.add(split_op());
}

}  // namespace tessel::ops::shape

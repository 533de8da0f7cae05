// Operators that view the input's elements, in row-major order, with another shape:
// Reshape, Flatten, Squeeze, Unsqueeze. They differ only in how the output shape is
// derived; one compute serves them all.
#include "ops/op_util.h"
#include "ops/shape/shape_ops.h"
#include "support/error.h"

namespace tessel::ops::shape {

namespace {

using graph::AttrKind;
using ShapeFn = std::vector<int64_t> (*)(const OpContext&);

/// The input index of the element at output index `v` when the input of `in` is viewed
/// with shape `out` (equal element counts). The dimensions are matched in consecutive
/// groups of equal extent product, so that unit and unchanged dimensions cost no division.
std::vector<ir::Expr> reshape_index(const std::vector<int64_t>& in, const std::vector<int64_t>& out,
                                    const std::vector<te::Var>& v) {
  std::vector<ir::Expr> at(in.size(), ir::Expr(int64_t{0}));
  if (te::shape_size(in) == 0) return at;  // the output is empty: nothing is read
  size_t i = 0, o = 0;
  while (true) {
    while (i < in.size() && in[i] == 1) ++i;
    while (o < out.size() && out[o] == 1) ++o;
    if (i == in.size() || o == out.size()) break;
    size_t i_end = i + 1, o_end = o + 1;
    int64_t in_count = in[i], out_count = out[o];
    while (in_count != out_count) {
      bool grow_in = in_count < out_count;
      TESSEL_ICHECK(grow_in ? i_end < in.size() : o_end < out.size(), "reshape of ", shape_text(in),
                    " into ", shape_text(out), ": element counts differ");
      if (grow_in) {
        in_count *= in[i_end++];
      } else {
        out_count *= out[o_end++];
      }
    }
    ir::Expr linear = v[o];
    for (size_t d = o + 1; d < o_end; ++d) linear = linear * out[d] + v[d];
    for (size_t d = i_end - 1; d > i; --d) {
      at[d] = linear % in[d];
      linear = linear / in[d];
    }
    at[i] = linear;
    i = i_end;
    o = o_end;
  }
  return at;
}

std::vector<int64_t> reshape_shape(const OpContext& ctx) {
  std::vector<int64_t> in = ctx.input_shape(0);
  // Before opset 5 the shape was an attribute.
  bool attribute = ctx.opset() < 5;
  if (!attribute && ctx.input_shape(1).size() != 1)
    ctx.fail("input 'shape' must be 1-d, found " + ctx.input_type(1).to_string());
  std::vector<int64_t> shape = attribute ? ctx.attr_ints("shape") : ctx.input_ints(1);
  const std::string given =
      std::string(attribute ? "attribute" : "input") + " 'shape' " + shape_text(shape);
  bool allow_zero = ctx.opset() >= 14 && ctx.attr_int("allowzero") != 0;
  std::optional<size_t> inferred;
  int64_t known = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      if (inferred) ctx.fail(given + " has more than one -1");
      inferred = d;
      continue;
    }
    if (shape[d] == 0 && !allow_zero) {
      if (d >= in.size())
        ctx.fail(given + ": dimension " + std::to_string(d) +
                 " is 0 (copy the input's) but the input has rank " + std::to_string(in.size()));
      shape[d] = in[d];
    }
    if (shape[d] < 0)
      ctx.fail(given + ": dimension " + std::to_string(d) + " is " + std::to_string(shape[d]) +
               ", expected >= -1");
    if (shape[d] != 0 && known > graph::kMaxTensorElements / shape[d])
      ctx.fail(given + " has more than 2^34 elements");
    known *= shape[d];
  }
  int64_t count = te::shape_size(in);
  if (inferred) {
    if (known == 0 || count % known != 0)
      ctx.fail(given + ": cannot infer the -1 dimension for an input of shape " + shape_text(in));
    shape[*inferred] = count / known;
  }
  if (te::shape_size(shape) != count)
    ctx.fail("cannot reshape an input of shape " + shape_text(in) + " (" + std::to_string(count) +
             " elements) into " + shape_text(shape) + " (" + std::to_string(te::shape_size(shape)) +
             " elements)");
  return shape;
}

std::vector<int64_t> flatten_shape(const OpContext& ctx) {
  std::vector<int64_t> in = ctx.input_shape(0);
  auto rank = static_cast<int64_t>(in.size());
  int64_t axis = ctx.attr_int("axis");
  if (axis < -rank || axis > rank)
    ctx.fail("attribute 'axis' is " + std::to_string(axis) + ", out of range [" +
             std::to_string(-rank) + ", " + std::to_string(rank) + "] for rank " +
             std::to_string(rank));
  if (axis < 0) axis += rank;
  std::vector<int64_t> outer(in.begin(), in.begin() + axis), inner(in.begin() + axis, in.end());
  return {te::shape_size(outer), te::shape_size(inner)};
}

/// Where the axes list of Squeeze / Unsqueeze comes from at the node's opset.
std::string axes_source(const OpContext& ctx) {
  return ctx.opset() >= 13 ? "input 'axes'" : "attribute 'axes'";
}

std::vector<int64_t> squeeze_shape(const OpContext& ctx) {
  std::vector<int64_t> in = ctx.input_shape(0);
  std::vector<bool> drop(in.size());
  if (auto axes = ints_from_attr_or_input(ctx, "axes", 1, 13)) {
    for (int64_t a : normalize_axes(ctx, *axes, static_cast<int64_t>(in.size()), "axis")) {
      if (in[a] != 1)
        ctx.fail(axes_source(ctx) + " names axis " + std::to_string(a) + " of extent " +
                 std::to_string(in[a]) + " (input shape " + shape_text(in) +
                 "), expected extent 1");
      drop[a] = true;
    }
  } else {
    for (size_t d = 0; d < in.size(); ++d) drop[d] = in[d] == 1;
  }
  std::vector<int64_t> shape;
  for (size_t d = 0; d < in.size(); ++d)
    if (!drop[d]) shape.push_back(in[d]);
  return shape;
}

std::vector<int64_t> unsqueeze_shape(const OpContext& ctx) {
  std::vector<int64_t> in = ctx.input_shape(0);
  auto axes = ints_from_attr_or_input(ctx, "axes", 1, 13);
  if (!axes) ctx.fail(axes_source(ctx) + " is required but not given");
  auto rank = static_cast<int64_t>(in.size() + axes->size());
  std::vector<bool> inserted(static_cast<size_t>(rank));
  for (int64_t a : normalize_axes(ctx, *axes, rank, "axis")) inserted[a] = true;
  std::vector<int64_t> shape;
  auto next = in.begin();
  for (bool unit : inserted) shape.push_back(unit ? 1 : *next++);
  return shape;
}

OpDef reshape_like_op(std::string name, int since, std::vector<AttrSpec> attributes,
                      std::vector<int> value_inputs, ShapeFn shape_of) {
  OpDef def;
  def.name = std::move(name);
  def.since_version = since;
  def.attributes = std::move(attributes);
  def.pattern = PatternKind::Injective;
  def.value_inputs = std::move(value_inputs);
  def.infer = [shape_of](const OpContext& ctx) { return like_input(ctx, shape_of(ctx)); };
  def.compute = [shape_of, stage = def.name](const OpContext& ctx,
                                             const std::vector<te::Tensor>& inputs) {
    std::vector<int64_t> in = ctx.input_shape(0), out = shape_of(ctx);
    auto index = [&](const std::vector<te::Var>& v) { return reshape_index(in, out, v); };
    return std::vector<te::Tensor>{gather_input(inputs[0], out, index, stage)};
  };
  return def;
}

}  // namespace

void register_reshape_ops(OpRegistry& registry) {
  registry.add(reshape_like_op("Reshape", 1,
                               {{"allowzero", AttrKind::Int, graph::Attribute::of_int(0)},
                                {"consumed_inputs", AttrKind::Ints, std::nullopt},
                                {"shape", AttrKind::Ints, std::nullopt}},
                               {1}, reshape_shape));
  registry.add(reshape_like_op("Flatten", 1, {{"axis", AttrKind::Int, graph::Attribute::of_int(1)}},
                               {}, flatten_shape));
  registry.add(reshape_like_op("Squeeze", 1, {{"axes", AttrKind::Ints, {}}}, {1}, squeeze_shape));
  registry.add(
      reshape_like_op("Unsqueeze", 1, {{"axes", AttrKind::Ints, {}}}, {1}, unsqueeze_shape));
}

}  // namespace tessel::ops::shape

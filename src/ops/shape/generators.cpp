// Operators that generate tensors from a few host values: ConstantOfShape, Range, OneHot.
#include <cmath>
#include <memory>

#include "ops/op_util.h"
#include "ops/shape/shape_ops.h"
#include "te/compute.h"

namespace tessel::ops::shape {

namespace {

using graph::AttrKind;

// ---- ConstantOfShape ---------------------------------------------------------------------

std::vector<int64_t> constant_of_shape_shape(const OpContext& ctx) {
  if (ctx.input_shape(0).size() != 1)
    ctx.fail("input 'input' must be 1-d, found " + ctx.input_type(0).to_string());
  std::vector<int64_t> shape = ctx.input_ints(0);
  check_shape(ctx, shape, "input 'input' " + shape_text(shape));
  return shape;
}

const runtime::NDArray& fill_value(const OpContext& ctx) {
  const runtime::NDArray& value = ctx.attr_tensor("value");
  if (value.size() != 1)
    ctx.fail("attribute 'value' must hold one element, found " + std::to_string(value.size()));
  return value;
}

OpDef constant_of_shape_op() {
  auto zero =
      std::make_shared<runtime::NDArray>(runtime::NDArray::zeros({1}, runtime::DType::Float(32)));
  OpDef def;
  def.name = "ConstantOfShape";
  def.since_version = 9;
  def.attributes = {{"value", AttrKind::Tensor, graph::Attribute::of_tensor(zero)}};
  def.pattern = PatternKind::Injective;
  def.value_inputs = {0};
  def.infer = [](const OpContext& ctx) {
    return std::vector<graph::TensorType>{graph::TensorType::of(
        graph::to_data_type(fill_value(ctx).dtype()), constant_of_shape_shape(ctx))};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>&) {
    ir::Expr value = element_expr(ctx, fill_value(ctx), 0);
    return std::vector<te::Tensor>{te::compute(
        shape_exprs(constant_of_shape_shape(ctx)),
        [&](const std::vector<te::Var>&) { return value; }, "constant_of_shape")};
  };
  return def;
}

// ---- Range -------------------------------------------------------------------------------

/// max(ceil((limit - start) / delta), 0), exactly for integer types.
int64_t range_length(const OpContext& ctx) {
  ir::DataType dtype = ctx.input_type(0).dtype;
  for (size_t k = 0; k < 3; ++k) {
    if (ctx.input_type(k).dtype != dtype)
      ctx.fail("inputs must share one type, found " + ctx.input_type(0).to_string() + " and " +
               ctx.input_type(k).to_string());
    if (te::shape_size(ctx.input_shape(k)) != 1)
      ctx.fail("input " + std::to_string(k) + " must be a scalar, found " +
               ctx.input_type(k).to_string());
  }
  int64_t length = 0;
  if (dtype.is_float()) {
    double start = ctx.input_floats(0)[0], limit = ctx.input_floats(1)[0];
    double delta = ctx.input_floats(2)[0];
    if (delta == 0) ctx.fail("input 'delta' is 0");
    double count = std::ceil((limit - start) / delta);
    if (count > static_cast<double>(graph::kMaxTensorElements))
      ctx.fail("the range has more than 2^34 elements");
    length = count > 0 ? static_cast<int64_t>(count) : 0;
  } else {
    int64_t start = ctx.input_ints(0)[0], limit = ctx.input_ints(1)[0];
    int64_t delta = ctx.input_ints(2)[0];
    if (delta == 0) ctx.fail("input 'delta' is 0");
    int64_t span = limit - start;
    length = span / delta + (span % delta != 0 && (span > 0) == (delta > 0) ? 1 : 0);
    length = std::max<int64_t>(length, 0);
  }
  check_shape(ctx, {length}, "the range");
  return length;
}

OpDef range_op() {
  OpDef def;
  def.name = "Range";
  def.since_version = 11;
  def.pattern = PatternKind::Injective;
  def.value_inputs = {0, 1, 2};
  def.infer = [](const OpContext& ctx) { return like_input(ctx, {range_length(ctx)}); };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>&) {
    int64_t length = range_length(ctx);
    ir::Expr start = element_expr(ctx, *ctx.input_value(0), 0);
    ir::Expr delta = element_expr(ctx, *ctx.input_value(2), 0);
    ir::DataType dtype = ctx.input_type(0).dtype;
    return std::vector<te::Tensor>{te::compute(
        {ir::Expr(length)}, [&](te::Var i) { return start + ir::cast(dtype, i) * delta; },
        "range")};
  };
  return def;
}

// ---- OneHot ------------------------------------------------------------------------------

/// The output shape: the indices' shape with `depth` inserted at `axis`.
struct OneHotLayout {
  int64_t axis = 0;
  int64_t depth = 0;
  std::vector<int64_t> shape;
};

OneHotLayout one_hot_layout(const OpContext& ctx) {
  OneHotLayout layout;
  layout.shape = ctx.input_shape(0);
  std::vector<int64_t> depth = ctx.input_ints(1);
  if (depth.size() != 1)
    ctx.fail("input 'depth' must hold one value, found " + std::to_string(depth.size()));
  layout.depth = depth[0];
  if (layout.depth < 1)
    ctx.fail("input 'depth' is " + std::to_string(depth[0]) + ", expected >= 1");
  std::vector<int64_t> values_shape = ctx.input_shape(2);
  if (values_shape != std::vector<int64_t>{2})
    ctx.fail("input 'values' must have shape [2], found " + shape_text(values_shape));
  auto rank = static_cast<int64_t>(layout.shape.size());
  layout.axis = normalize_axis(ctx, ctx.attr_int("axis"), rank + 1, "attribute 'axis'");
  layout.shape.insert(layout.shape.begin() + layout.axis, layout.depth);
  check_shape(ctx, layout.shape, "the output");
  return layout;
}

OpDef one_hot_op() {
  OpDef def;
  def.name = "OneHot";
  def.since_version = 9;
  def.attributes = {{"axis", AttrKind::Int, graph::Attribute::of_int(-1)}};
  def.pattern = PatternKind::Injective;
  def.value_inputs = {1};
  def.infer = [](const OpContext& ctx) {
    return std::vector<graph::TensorType>{
        graph::TensorType::of(ctx.input_type(2).dtype, one_hot_layout(ctx).shape)};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& inputs) {
    OneHotLayout layout = one_hot_layout(ctx);
    const te::Tensor& indices = inputs[0];
    const te::Tensor& values = inputs[2];
    auto body = [&](const std::vector<te::Var>& v) {
      std::vector<ir::Expr> at(v.begin(), v.end());
      at.erase(at.begin() + layout.axis);
      // Non-integer indices are truncated to int64; negative ones count from the back.
      ir::Expr index = ir::cast(ir::DataType::Int(64), indices(at));
      ir::Expr wrapped = ir::select(index < ir::Expr(int64_t{0}), index + layout.depth, index);
      return ir::select(wrapped == v[layout.axis], values(ir::Expr(int64_t{1})),
                        values(ir::Expr(int64_t{0})));
    };
    return std::vector<te::Tensor>{te::compute(shape_exprs(layout.shape), body, "one_hot")};
  };
  return def;
}

}  // namespace

void register_generator_ops(OpRegistry& registry) {
  registry.add(constant_of_shape_op());
  registry.add(range_op());
  registry.add(one_hot_op());
}

}  // namespace tessel::ops::shape

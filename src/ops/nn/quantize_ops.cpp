// QuantizeLinear, DequantizeLinear (per tensor or per axis) and DynamicQuantizeLinear.
#include "ops/nn/nn_ops.h"
#include "ops/nn/nn_util.h"
#include "ops/nn/quantize.h"
#include "ops/op_util.h"

namespace tessel::ops::nn {
namespace {

using graph::Attribute;
using graph::AttrKind;

const ir::DataType kFloat = ir::DataType::Float(32);

/// The axis of per-axis parameters of a (de)quantisation node, -1 for per-tensor ones;
/// checks the scale and zero point (inputs 1 and 2) against it.
int64_t linear_axis(const OpContext& ctx) {
  std::vector<int64_t> x = ctx.input_shape(0);
  check_dtype(ctx, 1, {kFloat});
  int64_t axis = -1, extent = 0;
  if (ctx.opset() >= 13 && te::shape_size(ctx.input_shape(1)) != 1) {
    axis = normalize_axis(ctx, ctx.attr_int("axis"), static_cast<int64_t>(x.size()));
    extent = x[static_cast<size_t>(axis)];
  }
  check_param(ctx, 1, extent, "scale");
  check_param(ctx, 2, extent, "zero point");
  if (ctx.has_input(2) && ctx.input_shape(2) != ctx.input_shape(1))
    ctx.fail("zero point " + shape_text(ctx.input_shape(2)) + " and scale " +
             shape_text(ctx.input_shape(1)) + " must have the same shape");
  return axis;
}

ir::Expr channel_of(const std::vector<te::Var>& index, int64_t axis) {
  return axis < 0 ? ir::Expr(int64_t{0}) : ir::Expr(index[static_cast<size_t>(axis)]);
}

te::Tensor optional_input(const std::vector<te::Tensor>& in, size_t i) {
  return i < in.size() ? in[i] : te::Tensor();
}

// ---- QuantizeLinear ---------------------------------------------------------------------

ir::DataType quantized_type(const OpContext& ctx) {
  if (!ctx.has_input(2)) return ir::DataType::UInt(8);
  check_dtype(ctx, 2, quantized_types());
  return ctx.input_type(2).dtype;
}

OpDef quantize_linear_def() {
  OpDef def;
  def.name = "QuantizeLinear";
  def.since_version = 10;
  def.attributes = {{"axis", AttrKind::Int, Attribute::of_int(1)}};
  def.pattern = PatternKind::Broadcast;
  def.infer = [](const OpContext& ctx) {
    check_dtype(ctx, 0, {kFloat, ir::DataType::Int(32)});
    linear_axis(ctx);
    return std::vector{graph::TensorType::of(quantized_type(ctx), ctx.input_shape(0))};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    int64_t axis = linear_axis(ctx);
    ir::DataType dtype = quantized_type(ctx);
    te::Tensor zero_point = optional_input(in, 2);
    return std::vector{te::compute(
        in[0].shape(),
        [&](const std::vector<te::Var>& index) {
          ir::Expr x = ir::cast(kFloat, in[0](std::vector<ir::Expr>(index.begin(), index.end())));
          ir::Expr channel = channel_of(index, axis);
          return quantize_value(x / param_load(in[1], channel, kFloat),
                                param_load(zero_point, channel, kFloat), dtype);
        },
        "quantize")};
  };
  return def;
}

// ---- DequantizeLinear -------------------------------------------------------------------

OpDef dequantize_linear_def() {
  OpDef def;
  def.name = "DequantizeLinear";
  def.since_version = 10;
  def.attributes = {{"axis", AttrKind::Int, Attribute::of_int(1)}};
  def.pattern = PatternKind::Broadcast;
  def.infer = [](const OpContext& ctx) {
    check_dtype(ctx, 0, {ir::DataType::Int(8), ir::DataType::UInt(8), ir::DataType::Int(32)});
    linear_axis(ctx);
    if (ctx.has_input(2) && ctx.input_type(2).dtype != ctx.input_type(0).dtype)
      ctx.fail("zero point has element type " + ctx.input_type(2).dtype.to_string() + ", x has " +
               ctx.input_type(0).dtype.to_string());
    return std::vector{graph::TensorType::of(kFloat, ctx.input_shape(0))};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    int64_t axis = linear_axis(ctx);
    te::Tensor zero_point = optional_input(in, 2);
    return std::vector{te::compute(
        in[0].shape(),
        [&](const std::vector<te::Var>& index) {
          ir::Expr x = ir::cast(kFloat, in[0](std::vector<ir::Expr>(index.begin(), index.end())));
          ir::Expr channel = channel_of(index, axis);
          return (x - param_load(zero_point, channel, kFloat)) * param_load(in[1], channel, kFloat);
        },
        "dequantize")};
  };
  return def;
}

// ---- DynamicQuantizeLinear ----------------------------------------------------------------

/// y_scale = (max(x, 0) - min(x, 0)) / 255, y_zero_point = saturate(round(-min(x, 0) /
/// y_scale)), y = saturate(round(x / y_scale) + y_zero_point), all uint8.
std::vector<te::Tensor> dynamic_quantize_compute(const OpContext&,
                                                 const std::vector<te::Tensor>& in) {
  const te::Tensor& x = in[0];
  const ir::DataType u8 = ir::DataType::UInt(8);
  std::vector<te::IterVar> all;
  std::vector<ir::Expr> at;
  for (int d = 0; d < x.ndim(); ++d) {
    all.push_back(te::reduce_axis(x.shape()[static_cast<size_t>(d)], indexed_name("r", d)));
    at.push_back(all.back().var);
  }
  std::vector<te::Tensor> range = te::compute_multi(
      {},
      [&](const std::vector<te::Var>&) {
        return std::vector{te::min_reduce(x(at), all), te::max_reduce(x(at), all)};
      },
      "range");
  ir::Expr zero = ir::make_const(kFloat, 0);
  te::Tensor scale = te::compute(
      {},
      [&](const std::vector<te::Var>&) {
        return (ir::max(range[1]({}), zero) - ir::min(range[0]({}), zero)) /
               ir::make_const(kFloat, 255);
      },
      "y_scale");
  te::Tensor zero_point = te::compute(
      {},
      [&](const std::vector<te::Var>&) {
        return quantize_value((zero - ir::min(range[0]({}), zero)) / scale({}), zero, u8);
      },
      "y_zero_point");
  te::Tensor y = te::compute(
      x.shape(),
      [&](const std::vector<te::Var>& index) {
        ir::Expr value = x(std::vector<ir::Expr>(index.begin(), index.end()));
        return quantize_value(value / scale({}), ir::cast(kFloat, zero_point({})), u8);
      },
      "y");
  return {y, scale, zero_point};
}

OpDef dynamic_quantize_linear_def() {
  OpDef def;
  def.name = "DynamicQuantizeLinear";
  def.since_version = 11;
  def.pattern = PatternKind::Opaque;
  def.infer = [](const OpContext& ctx) {
    check_dtype(ctx, 0, {kFloat});
    const ir::DataType u8 = ir::DataType::UInt(8);
    return std::vector{graph::TensorType::of(u8, ctx.input_shape(0)),
                       graph::TensorType::of(kFloat, {}), graph::TensorType::of(u8, {})};
  };
  def.compute = dynamic_quantize_compute;
  return def;
}

}  // namespace

void register_quantize_ops(OpRegistry& registry) {
  registry.add(quantize_linear_def());
  registry.add(dequantize_linear_def());
  registry.add(dynamic_quantize_linear_def());
}

}  // namespace tessel::ops::nn

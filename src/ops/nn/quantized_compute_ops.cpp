// Integer and quantized-linear contractions: MatMulInteger, ConvInteger (int32 results)
// and QLinearMatMul, QLinearConv (requantized). Each shifts its operands by their zero
// points as it reads them and accumulates in int32 on matmul_nd / conv_nd.
#include "ops/nn/contraction.h"
#include "ops/nn/conv.h"
#include "ops/nn/nn_ops.h"
#include "ops/nn/quantize.h"
#include "ops/op_util.h"
#include "schedules/cpu/contraction.h"
#include "schedules/cpu/generic.h"

namespace tessel::ops::nn {
namespace {

using graph::Attribute;
using graph::AttrKind;

const ir::DataType kInt32 = ir::DataType::Int(32);
const ir::DataType kFloat = ir::DataType::Float(32);

te::Tensor optional_input(const std::vector<te::Tensor>& in, size_t i) {
  return i < in.size() ? in[i] : te::Tensor();
}

/// Fails unless quantized operand `i` is int8 / uint8 and its zero point `zp` (when given)
/// has its type.
void check_quantized(const OpContext& ctx, size_t i, size_t zp) {
  check_dtype(ctx, i, quantized_types());
  if (ctx.has_input(zp) && ctx.input_type(zp).dtype != ctx.input_type(i).dtype)
    ctx.fail("zero point (input " + std::to_string(zp) + ") has element type " +
             ctx.input_type(zp).dtype.to_string() + ", its operand (input " + std::to_string(i) +
             ") has " + ctx.input_type(i).dtype.to_string());
}

/// `tensor` read as int32 minus its zero point, which is indexed by dimension `axis` of
/// the operand's index (a per-row, per-column or per-channel zero point).
Operand shifted(const te::Tensor& tensor, const te::Tensor& zero_point, size_t axis) {
  Operand operand = Operand::of(tensor);
  operand.dtype = kInt32;
  operand.load = [tensor, zero_point, axis](const std::vector<ir::Expr>& index) {
    return ir::cast(kInt32, tensor(index)) - param_load(zero_point, index[axis], kInt32);
  };
  return operand;
}

/// The requantized stage "<name>" of int32 `acc`: quantize_value(acc * multiplier(index),
/// zero_point) in the zero point's type.
te::Tensor requantize(const te::Tensor& acc,
                      const std::function<ir::Expr(const std::vector<te::Var>&)>& multiplier,
                      const te::Tensor& zero_point, const std::string& name) {
  return te::compute(
      acc.shape(),
      [&](const std::vector<te::Var>& index) {
        ir::Expr value = ir::cast(kFloat, acc(std::vector<ir::Expr>(index.begin(), index.end())));
        return quantize_value(value * multiplier(index), param_load(zero_point, 0, kFloat),
                              zero_point.dtype());
      },
      name);
}

// ---- Matrix products --------------------------------------------------------------------

/// Inputs of a quantized product: operands a, b and their zero points.
struct ProductInputs {
  size_t a, a_zp, b, b_zp;
};

MatmulShape quantized_product_shape(const OpContext& ctx, const ProductInputs& p) {
  check_quantized(ctx, p.a, p.a_zp);
  check_quantized(ctx, p.b, p.b_zp);
  MatmulShape shape = matmul_shape(ctx, ctx.input_shape(p.a), ctx.input_shape(p.b));
  check_param(ctx, p.a_zp, shape.m, "zero point of A");
  check_param(ctx, p.b_zp, shape.n, "zero point of B");
  return shape;
}

te::Tensor quantized_product(const MatmulShape& shape, const std::vector<te::Tensor>& in,
                             const ProductInputs& p, const std::string& name) {
  // A's zero point is per row (the next-to-last dimension), B's per column (the last).
  size_t a_row = shape.a.size() >= 2 ? shape.a.size() - 2 : 0;
  return matmul_nd(shape, shifted(in[p.a], optional_input(in, p.a_zp), a_row),
                   shifted(in[p.b], optional_input(in, p.b_zp), shape.b.size() - 1), name);
}

constexpr ProductInputs kMatMulInteger{0, 2, 1, 3};
constexpr ProductInputs kQLinearMatMul{0, 2, 3, 5};

OpDef matmul_integer_def() {
  OpDef def;
  def.name = "MatMulInteger";
  def.since_version = 10;
  def.pattern = PatternKind::OutFusable;
  def.infer = [](const OpContext& ctx) {
    return std::vector{
        graph::TensorType::of(kInt32, quantized_product_shape(ctx, kMatMulInteger).output)};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    MatmulShape shape = quantized_product_shape(ctx, kMatMulInteger);
    return std::vector{quantized_product(shape, in, kMatMulInteger, "matmul")};
  };
  def.schedule = [](const OpContext& ctx, schedule::Schedule& s,
                    const std::vector<te::Tensor>& outputs) {
    schedules::schedule_contraction(s, s.tensor("matmul"), ctx.target());
    schedules::schedule_generic(s, outputs, ctx.target());
  };
  return def;
}

/// Scales a_scale (input 1), b_scale (4), y_scale (6) and y_zero_point (7) of QLinearMatMul.
void check_requantization(const OpContext& ctx, const MatmulShape& shape) {
  for (size_t i : {1, 4, 6}) check_dtype(ctx, i, {kFloat});
  check_param(ctx, 1, shape.m, "a_scale");
  check_param(ctx, 4, shape.n, "b_scale");
  check_param(ctx, 6, 0, "y_scale");
  check_param(ctx, 7, 0, "y_zero_point");
  check_dtype(ctx, 7, quantized_types());
}

OpDef qlinear_matmul_def() {
  OpDef def;
  def.name = "QLinearMatMul";
  def.since_version = 10;
  def.pattern = PatternKind::Opaque;
  def.infer = [](const OpContext& ctx) {
    MatmulShape shape = quantized_product_shape(ctx, kQLinearMatMul);
    check_requantization(ctx, shape);
    return std::vector{graph::TensorType::of(ctx.input_type(7).dtype, shape.output)};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    MatmulShape shape = quantized_product_shape(ctx, kQLinearMatMul);
    te::Tensor acc = quantized_product(shape, in, kQLinearMatMul, "matmul");
    bool has_i = shape.a.size() >= 2, has_j = shape.b.size() >= 2;
    auto multiplier = [&](const std::vector<te::Var>& index) {
      ir::Expr i = has_i ? ir::Expr(index[index.size() - (has_j ? 2 : 1)]) : ir::Expr(int64_t{0});
      ir::Expr j = has_j ? ir::Expr(index.back()) : ir::Expr(int64_t{0});
      return param_load(in[1], i, kFloat) * param_load(in[4], j, kFloat) /
             param_load(in[6], 0, kFloat);
    };
    return std::vector{requantize(acc, multiplier, in[7], "qlinear")};
  };
  def.schedule = [](const OpContext& ctx, schedule::Schedule& s,
                    const std::vector<te::Tensor>& outputs) {
    schedules::schedule_contraction(s, s.tensor("matmul"), ctx.target());
    schedules::schedule_generic(s, outputs, ctx.target());
  };
  return def;
}

// ---- Convolutions -----------------------------------------------------------------------

std::vector<AttrSpec> conv_attributes() {
  return {{"auto_pad", AttrKind::String, Attribute::of_string("NOTSET")},
          {"dilations", AttrKind::Ints, std::nullopt},
          {"group", AttrKind::Int, Attribute::of_int(1)},
          {"kernel_shape", AttrKind::Ints, std::nullopt},
          {"pads", AttrKind::Ints, std::nullopt},
          {"strides", AttrKind::Ints, std::nullopt}};
}

/// Inputs of a quantized convolution: data x, weight w and their zero points.
struct ConvInputs {
  size_t x, x_zp, w, w_zp;
};

constexpr ConvInputs kConvInteger{0, 2, 1, 3};
constexpr ConvInputs kQLinearConv{0, 2, 3, 5};

ConvShape quantized_conv_shape(const OpContext& ctx, const ConvInputs& c) {
  check_quantized(ctx, c.x, c.x_zp);
  check_quantized(ctx, c.w, c.w_zp);
  ConvShape shape = conv_shape(ctx, c.x, c.w);
  check_param(ctx, c.x_zp, 0, "zero point of x");
  check_param(ctx, c.w_zp, shape.out_channels, "zero point of w");
  return shape;
}

te::Tensor quantized_conv(const ConvShape& shape, const std::vector<te::Tensor>& in,
                          const ConvInputs& c) {
  // x's zero point is per tensor, w's per output channel (dimension 0).
  return conv_nd(shape, shifted(in[c.x], optional_input(in, c.x_zp), 1),
                 shifted(in[c.w], optional_input(in, c.w_zp), 0), "conv");
}

void schedule_quantized_conv(const OpContext& ctx, schedule::Schedule& s,
                             const std::vector<te::Tensor>& outputs) {
  schedules::schedule_contraction(s, s.tensor("conv"), ctx.target());
  schedules::schedule_generic(s, outputs, ctx.target());
}

OpDef conv_integer_def() {
  OpDef def;
  def.name = "ConvInteger";
  def.since_version = 10;
  def.attributes = conv_attributes();
  def.pattern = PatternKind::OutFusable;
  def.infer = [](const OpContext& ctx) {
    return std::vector{
        graph::TensorType::of(kInt32, quantized_conv_shape(ctx, kConvInteger).output)};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    return std::vector{quantized_conv(quantized_conv_shape(ctx, kConvInteger), in, kConvInteger)};
  };
  def.schedule = schedule_quantized_conv;
  return def;
}

ConvShape qlinear_conv_shape(const OpContext& ctx) {
  ConvShape shape = quantized_conv_shape(ctx, kQLinearConv);
  for (size_t i : {1, 4, 6}) check_dtype(ctx, i, {kFloat});
  check_param(ctx, 1, 0, "x_scale");
  check_param(ctx, 4, shape.out_channels, "w_scale");
  check_param(ctx, 6, 0, "y_scale");
  check_param(ctx, 7, 0, "y_zero_point");
  check_dtype(ctx, 7, quantized_types());
  if (ctx.has_input(8)) check_dtype(ctx, 8, {kInt32});
  check_channel_input(ctx, 8, shape.out_channels, "bias B");
  return shape;
}

OpDef qlinear_conv_def() {
  OpDef def;
  def.name = "QLinearConv";
  def.since_version = 10;
  def.attributes = conv_attributes();
  def.pattern = PatternKind::Opaque;
  def.infer = [](const OpContext& ctx) {
    return std::vector{
        graph::TensorType::of(ctx.input_type(7).dtype, qlinear_conv_shape(ctx).output)};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    te::Tensor acc = quantized_conv(qlinear_conv_shape(ctx), in, kQLinearConv);
    te::Tensor bias = optional_input(in, 8);
    if (bias.defined())
      acc = te::compute(
          acc.shape(),
          [&](const std::vector<te::Var>& index) {
            return acc(std::vector<ir::Expr>(index.begin(), index.end())) + bias(index[1]);
          },
          "conv.bias");
    auto multiplier = [&](const std::vector<te::Var>& index) {
      return param_load(in[1], 0, kFloat) * param_load(in[4], index[1], kFloat) /
             param_load(in[6], 0, kFloat);
    };
    return std::vector{requantize(acc, multiplier, in[7], "qlinear")};
  };
  def.schedule = schedule_quantized_conv;
  return def;
}

}  // namespace

void register_quantized_compute_ops(OpRegistry& registry) {
  registry.add(matmul_integer_def());
  registry.add(qlinear_matmul_def());
  registry.add(conv_integer_def());
  registry.add(qlinear_conv_def());
}

}  // namespace tessel::ops::nn

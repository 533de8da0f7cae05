// The table of activation functions: Relu LeakyRelu Elu Selu Celu Sigmoid HardSigmoid
// HardSwish Softplus Softsign Tanh ThresholdedRelu Shrink (unary) and PRelu (binary, its
// slope broadcast to the input's shape).
//
// Piecewise definitions select on the comparison that is false for NaN, so NaN inputs give
// NaN outputs as in the ONNX reference.
#include "ops/elementwise/elementwise.h"

namespace tessel::ops::elementwise {

namespace {

using ir::Expr;
using UnaryBody = std::function<Expr(const OpContext&, const Expr&)>;

UnaryOp activation(std::string name, int since_version, std::vector<AttrSpec> attributes,
                   UnaryBody body, unsigned types = kFloat, bool integers_as_float = false) {
  UnaryOp op;
  op.name = std::move(name);
  op.since_version = since_version;
  op.types = types;
  op.attributes = std::move(attributes);
  op.body = std::move(body);
  op.integers_as_float = integers_as_float;
  return op;
}

Expr constant(const Expr& like, double value) {
  return ir::make_const(like.dtype(), value);
}

Expr relu(const OpContext&, const Expr& x) {
  return ir::select(x < 0, constant(x, 0), x);
}

Expr leaky_relu(const OpContext& ctx, const Expr& x) {
  return ir::select(x < 0, attr_const(ctx, "alpha", x) * x, x);
}

Expr elu(const OpContext& ctx, const Expr& x) {
  return ir::select(x < 0, attr_const(ctx, "alpha", x) * (ir::exp(x) - constant(x, 1)), x);
}

Expr selu(const OpContext& ctx, const Expr& x) {
  Expr alpha = attr_const(ctx, "alpha", x), gamma = attr_const(ctx, "gamma", x);
  return gamma * ir::select(x <= 0, alpha * ir::exp(x) - alpha, x);
}

Expr celu(const OpContext& ctx, const Expr& x) {
  Expr alpha = attr_const(ctx, "alpha", x);
  return ir::select(x < 0, alpha * (ir::exp(x / alpha) - constant(x, 1)), x);
}

Expr sigmoid(const OpContext&, const Expr& x) {
  return ir::sigmoid(x);
}

Expr hard_sigmoid(const OpContext& ctx, const Expr& x) {
  Expr linear = attr_const(ctx, "alpha", x) * x + attr_const(ctx, "beta", x);
  return clamp(linear, constant(x, 0), constant(x, 1));
}

Expr hard_swish(const OpContext&, const Expr& x) {
  Expr linear = constant(x, 1.0 / 6.0) * x + constant(x, 0.5);
  return x * clamp(linear, constant(x, 0), constant(x, 1));
}

/// log(1 + exp(x)), written as max(x, 0) + log(1 + exp(-|x|)) so that it never overflows.
Expr softplus(const OpContext&, const Expr& x) {
  Expr positive = ir::select(x > 0, x, constant(x, 0));
  return positive + ir::log(constant(x, 1) + ir::exp(-ir::abs(x)));
}

Expr softsign(const OpContext&, const Expr& x) {
  return x / (constant(x, 1) + ir::abs(x));
}

Expr tanh(const OpContext&, const Expr& x) {
  return ir::tanh(x);
}

Expr thresholded_relu(const OpContext& ctx, const Expr& x) {
  return ir::select(x > attr_const(ctx, "alpha", x), x, constant(x, 0));
}

Expr shrink(const OpContext& ctx, const Expr& x) {
  Expr lambd = attr_const(ctx, "lambd", x), bias = attr_const(ctx, "bias", x);
  return ir::select(x < -lambd, x + bias, ir::select(x > lambd, x - bias, constant(x, 0)));
}

}  // namespace

std::vector<UnaryOp> unary_activation_ops() {
  return {
      activation("Relu", 1, {}, relu, kSignedNumeric),
      activation("LeakyRelu", 1, {float_attr("alpha", 0.01)}, leaky_relu),
      activation("Elu", 1, {float_attr("alpha", 1.0)}, elu),
      activation("Selu", 1,
                 {float_attr("alpha", 1.67326319217681884765625),
                  float_attr("gamma", 1.05070102214813232421875)},
                 selu),
      activation("Celu", 12, {float_attr("alpha", 1.0)}, celu),
      activation("Sigmoid", 1, {}, sigmoid),
      activation("HardSigmoid", 1, {float_attr("alpha", 0.2), float_attr("beta", 0.5)},
                 hard_sigmoid),
      activation("HardSwish", 14, {}, hard_swish),
      activation("Softplus", 1, {}, softplus),
      activation("Softsign", 1, {}, softsign),
      activation("Tanh", 1, {}, tanh),
      activation("ThresholdedRelu", 10, {float_attr("alpha", 1.0)}, thresholded_relu),
      // Shrink's thresholds and bias are floats: integers are computed in float64.
      activation("Shrink", 9, {float_attr("lambd", 0.5), float_attr("bias", 0.0)}, shrink, kNumeric,
                 true),
  };
}

std::vector<BinaryOp> binary_activation_ops() {
  BinaryOp prelu;
  prelu.name = "PRelu";
  prelu.since_version = 1;
  prelu.types = kNumeric;
  prelu.unidirectional = true;
  prelu.body = [](const OpContext&, const Expr& x, const Expr& slope) {
    return ir::select(x < 0, slope * x, x);
  };
  return {prelu};
}

}  // namespace tessel::ops::elementwise

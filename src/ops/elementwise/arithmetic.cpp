// The table of binary arithmetic operators: Add Sub Mul Div Pow Mod BitShift.
//
// ONNX integer Div truncates toward zero and Mod (fmod = 0) takes the divisor's sign, while
// tessel's IR `/` and `%` are floor division and modulo: Div corrects the floor quotient;
// Mod with fmod = 0 is the IR's `%`, with fmod = 1 C's fmod (ir::fmod).
#include "ops/elementwise/elementwise.h"

namespace tessel::ops::elementwise {

namespace {

using ir::Expr;
using BinaryBody = std::function<Expr(const OpContext&, const Expr&, const Expr&)>;

BinaryOp arithmetic(std::string name, int since_version, unsigned types, BinaryBody body) {
  BinaryOp op;
  op.name = std::move(name);
  op.since_version = since_version;
  op.types = types;
  op.body = std::move(body);
  return op;
}

Expr constant(const Expr& like, double value) {
  return ir::make_const(like.dtype(), value);
}

/// a / b rounded toward zero (true division for floats).
Expr divide(const OpContext&, const Expr& a, const Expr& b) {
  if (!a.dtype().is_int()) return a / b;
  Expr zero = constant(a, 0);
  // The floor quotient is one below the truncated one when the division is inexact and
  // the operands' signs differ.
  Expr inexact = a % b != zero;
  Expr signs_differ = (a < zero) != (b < zero);
  return a / b + ir::cast(a.dtype(), inexact && signs_differ);
}

/// Pow: a float base computes in the wider of the two float types; an integer base in
/// float64, cast back to the base's type by the registration.
Expr power(const OpContext&, const Expr& a, const Expr& b) {
  ir::DataType t = ir::DataType::Float(64);
  if (a.dtype().is_float())
    t = b.dtype().is_float() && b.dtype().bits > a.dtype().bits ? b.dtype() : a.dtype();
  return ir::pow(ir::cast(t, a), ir::cast(t, b));
}

BinaryOp mod() {
  BinaryOp op =
      arithmetic("Mod", 10, kNumeric, [](const OpContext& ctx, const Expr& a, const Expr& b) {
        return ctx.attr_int("fmod") ? ir::fmod(a, b) : a % b;
      });
  op.attributes = {{"fmod", graph::AttrKind::Int, graph::Attribute::of_int(0)}};
  op.validate = [](const OpContext& ctx) {
    int64_t fmod = ctx.attr_int("fmod");
    if (fmod != 0 && fmod != 1)
      ctx.fail("attribute 'fmod' is " + std::to_string(fmod) + ", expected 0 or 1");
    if (fmod == 0 && ctx.input_type(0).dtype.is_float())
      ctx.fail("attribute 'fmod' must be 1 for floating-point inputs (" +
               ctx.input_type(0).dtype.to_string() + ")");
  };
  return op;
}

BinaryOp bit_shift() {
  BinaryOp op =
      arithmetic("BitShift", 11, kUnsigned, [](const OpContext& ctx, const Expr& a, const Expr& b) {
        Expr shifted =
            ctx.attr_string("direction") == "LEFT" ? ir::shift_left(a, b) : ir::shift_right(a, b);
        // Shifting by the width or more yields 0 (numpy's rule; the IR leaves it undefined).
        return ir::select(b < constant(b, a.dtype().bits), shifted, constant(a, 0));
      });
  op.attributes = {{"direction", graph::AttrKind::String, std::nullopt, true}};
  op.validate = [](const OpContext& ctx) {
    std::string direction = ctx.attr_string("direction");
    if (direction != "LEFT" && direction != "RIGHT")
      ctx.fail("attribute 'direction' is '" + direction + "', expected 'LEFT' or 'RIGHT'");
  };
  return op;
}

}  // namespace

std::vector<BinaryOp> arithmetic_ops() {
  BinaryOp pow = arithmetic("Pow", 1, kSignedNumeric, power);
  pow.b_types = kNumeric;  // opset 12+: the exponent's type is independent of the base's
  return {
      arithmetic("Add", 1, kNumeric,
                 [](const OpContext&, const Expr& a, const Expr& b) { return a + b; }),
      arithmetic("Sub", 1, kNumeric,
                 [](const OpContext&, const Expr& a, const Expr& b) { return a - b; }),
      arithmetic("Mul", 1, kNumeric,
                 [](const OpContext&, const Expr& a, const Expr& b) { return a * b; }),
      arithmetic("Div", 1, kNumeric, divide),
      pow,
      mod(),
      bit_shift(),
  };
}

}  // namespace tessel::ops::elementwise

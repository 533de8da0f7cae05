// The table of unary math operators: Abs Neg Exp Log Sqrt Reciprocal Floor Ceil Round Sign,
// the trigonometric and hyperbolic functions, Erf, IsNaN, IsInf, Not.
#include <limits>

#include "ops/elementwise/elementwise.h"

namespace tessel::ops::elementwise {

namespace {

using ir::Expr;

enum Flags : unsigned { kBoolResult = 1, kIntegersAsFloat = 2 };

/// An operator whose element is `f(x)`, without attributes.
UnaryOp math(std::string name, int since_version, unsigned types, Expr (*f)(Expr),
             unsigned flags = 0) {
  UnaryOp op;
  op.name = std::move(name);
  op.since_version = since_version;
  op.types = types;
  op.bool_result = flags & kBoolResult;
  op.integers_as_float = flags & kIntegersAsFloat;
  op.body = [f](const OpContext&, const Expr& x) { return f(x); };
  return op;
}

Expr constant(const Expr& like, double value) {
  return ir::make_const(like.dtype(), value);
}

/// 1, 0 or -1 by the sign of x; NaN stays NaN.
Expr sign(Expr x) {
  if (x.dtype().is_uint()) return ir::select(x > 0, constant(x, 1), constant(x, 0));
  Expr zero_or_nan = x.dtype().is_float() ? ir::select(x == 0, constant(x, 0), x) : constant(x, 0);
  return ir::select(x > 0, constant(x, 1), ir::select(x < 0, constant(x, -1), zero_or_nan));
}

UnaryOp is_inf() {
  UnaryOp op;
  op.name = "IsInf";
  op.since_version = 10;
  op.types = kFloat;
  op.bool_result = true;
  op.attributes = {
      {"detect_positive", graph::AttrKind::Int, graph::Attribute::of_int(1)},
      {"detect_negative", graph::AttrKind::Int, graph::Attribute::of_int(1)},
  };
  op.body = [](const OpContext& ctx, const Expr& x) {
    bool positive = ctx.attr_int("detect_positive") != 0;
    bool negative = ctx.attr_int("detect_negative") != 0;
    if (positive && negative) return ir::is_inf(x);
    double inf = std::numeric_limits<double>::infinity();
    if (positive) return x == constant(x, inf);
    if (negative) return x == constant(x, -inf);
    return ir::make_bool(false);
  };
  return op;
}

}  // namespace

std::vector<UnaryOp> unary_math_ops() {
  return {
      math("Abs", 1, kNumeric, ir::abs),
      math("Neg", 1, kSignedNumeric, [](Expr x) { return -x; }),
      math("Exp", 1, kFloat, ir::exp),
      math("Log", 1, kFloat, ir::log),
      math("Sqrt", 1, kFloat, ir::sqrt),
      math("Reciprocal", 1, kFloat, [](Expr x) { return constant(x, 1) / x; }),
      math("Floor", 1, kFloat, ir::floor),
      math("Ceil", 1, kFloat, ir::ceil),
      math("Round", 11, kFloat, ir::round),
      math("Sign", 9, kNumeric, sign),
      math("Sin", 7, kFloat, ir::sin),
      math("Cos", 7, kFloat, ir::cos),
      math("Tan", 7, kFloat, ir::tan),
      math("Asin", 7, kFloat, ir::asin),
      math("Acos", 7, kFloat, ir::acos),
      math("Atan", 7, kFloat, ir::atan),
      math("Sinh", 9, kFloat, ir::sinh),
      math("Cosh", 9, kFloat, ir::cosh),
      math("Asinh", 9, kFloat, ir::asinh),
      math("Acosh", 9, kFloat, ir::acosh),
      math("Atanh", 9, kFloat, ir::atanh),
      math("Erf", 9, kNumeric, ir::erf, kIntegersAsFloat),
      math("IsNaN", 9, kFloat, ir::is_nan, kBoolResult),
      math("Not", 1, kBool, [](Expr x) { return !x; }),
      is_inf(),
  };
}

}  // namespace tessel::ops::elementwise

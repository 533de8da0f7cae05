// The table of logical and comparison operators, all with bool results: And Or Xor Equal
// Greater Less GreaterOrEqual LessOrEqual. Float comparisons with NaN are false.
#include "ops/elementwise/elementwise.h"

namespace tessel::ops::elementwise {

namespace {

using ir::Expr;

BinaryOp logic(std::string name, int since_version, unsigned types, Expr (*f)(Expr, Expr)) {
  BinaryOp op;
  op.name = std::move(name);
  op.since_version = since_version;
  op.types = types;
  op.bool_result = true;
  op.body = [f](const OpContext&, const Expr& a, const Expr& b) { return f(a, b); };
  return op;
}

}  // namespace

std::vector<BinaryOp> logic_ops() {
  return {
      logic("And", 1, kBool, [](Expr a, Expr b) { return a && b; }),
      logic("Or", 1, kBool, [](Expr a, Expr b) { return a || b; }),
      logic("Xor", 1, kBool, [](Expr a, Expr b) { return a != b; }),
      logic("Equal", 1, kAnyType, [](Expr a, Expr b) { return a == b; }),
      logic("Greater", 1, kNumeric, [](Expr a, Expr b) { return a > b; }),
      logic("Less", 1, kNumeric, [](Expr a, Expr b) { return a < b; }),
      logic("GreaterOrEqual", 12, kNumeric, [](Expr a, Expr b) { return a >= b; }),
      logic("LessOrEqual", 12, kNumeric, [](Expr a, Expr b) { return a <= b; }),
  };
}

}  // namespace tessel::ops::elementwise

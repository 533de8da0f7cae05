// Gelu (ONNX opset 20): x * Phi(x), exactly 0.5 x (1 + erf(x / sqrt(2))), or with
// approximate = "tanh" 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))). The graph
// rewrites also make it from the Erf form that exporters write out.
#include <cmath>

#include "ops/elementwise/elementwise.h"

namespace tessel::ops::elementwise {

UnaryOp gelu_op() {
  UnaryOp op;
  op.name = "Gelu";
  op.since_version = 20;
  op.attributes = {{"approximate", graph::AttrKind::String, graph::Attribute::of_string("none")}};
  op.body = [](const OpContext& ctx, const ir::Expr& x) {
    auto c = [&](double v) { return ir::make_const(x.dtype(), v); };
    std::string approximate = ctx.attr_string("approximate");
    if (approximate == "tanh")
      return c(0.5) * x * (c(1) + ir::tanh(c(std::sqrt(2 / M_PI)) * (x + c(0.044715) * x * x * x)));
    if (approximate != "none")
      ctx.fail("attribute 'approximate' is '" + approximate + "', expected 'none' or 'tanh'");
    return c(0.5) * x * (c(1) + ir::erf(x * c(M_SQRT1_2)));
  };
  return op;
}

}  // namespace tessel::ops::elementwise

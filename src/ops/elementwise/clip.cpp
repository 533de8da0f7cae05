// Clip: limits every element to [min, max]. Before opset 11 the bounds are float attributes
// (default: the float32 range); from opset 11 they are optional scalar inputs (absent: no
// bound), and from opset 12 integer tensors are accepted. NaN elements stay NaN.
#include <limits>

#include "ops/elementwise/elementwise.h"

namespace tessel::ops::elementwise {

namespace {

bool bounds_are_inputs(const OpContext& ctx) {
  return ctx.opset() >= 11;
}

std::vector<graph::TensorType> infer_clip(const OpContext& ctx) {
  check_input_count(ctx, 1, bounds_are_inputs(ctx) ? 3 : 1);
  check_input_type(ctx, 0, ctx.opset() >= 12 ? kNumeric : kFloat);
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    check_same_type(ctx, 0, i);
    if (ctx.input_type(i).num_elements() != 1)
      ctx.fail("input " + std::to_string(i) + " (" + (i == 1 ? "min" : "max") +
               ") must be a scalar, found " + ctx.input_type(i).to_string());
  }
  return {ctx.input_type(0)};
}

/// The scalar bound held by `bound` (a one-element tensor), or undefined when absent.
ir::Expr load_bound(const te::Tensor& bound) {
  if (!bound.defined()) return ir::Expr();
  return widen(bound(std::vector<ir::Expr>(static_cast<size_t>(bound.ndim()), ir::Expr(0))));
}

}  // namespace

void register_clip(OpRegistry& registry) {
  OpDef def;
  def.name = "Clip";
  def.since_version = 1;  // opsets 1-5 as 6, with the in-place hint consumed_inputs
  double float_max = std::numeric_limits<float>::max();
  def.attributes = {float_attr("min", -float_max),
                    float_attr("max", float_max),
                    {"consumed_inputs", graph::AttrKind::Ints, std::nullopt}};
  def.pattern = PatternKind::Broadcast;  // the bounds are scalars broadcast to the input
  def.infer = infer_clip;
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& inputs) {
    auto body = [&](const std::vector<ir::Expr>& v) {
      ir::Expr x = widen(v[0]), lo, hi;
      if (bounds_are_inputs(ctx)) {
        lo = load_bound(inputs.size() > 1 ? inputs[1] : te::Tensor());
        hi = load_bound(inputs.size() > 2 ? inputs[2] : te::Tensor());
      } else {
        lo = attr_const(ctx, "min", x);
        hi = attr_const(ctx, "max", x);
      }
      if (lo.defined()) x = ir::select(x < lo, lo, x);
      if (hi.defined()) x = ir::select(x > hi, hi, x);
      return ir::cast(inputs[0].dtype(), x);
    };
    return std::vector<te::Tensor>{broadcast_compute(ctx, {inputs[0]}, body, "clip")};
  };
  registry.add(std::move(def));
}

}  // namespace tessel::ops::elementwise

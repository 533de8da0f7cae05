// Where: an element of X where the condition holds, else of Y, with numpy broadcasting of
// all three inputs.
#include "ops/elementwise/elementwise.h"

namespace tessel::ops::elementwise {

void register_where(OpRegistry& registry) {
  OpDef def;
  def.name = "Where";
  def.since_version = 9;
  def.pattern = PatternKind::Broadcast;
  def.infer = [](const OpContext& ctx) {
    check_input_count(ctx, 3, 3);
    check_input_type(ctx, 0, kBool);
    check_input_type(ctx, 1, kAnyType);
    check_same_type(ctx, 1, 2);
    return std::vector<graph::TensorType>{
        graph::TensorType::of(ctx.input_type(1).dtype, broadcast_input_shapes(ctx, {0, 1, 2}))};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& inputs) {
    auto body = [](const std::vector<ir::Expr>& v) { return ir::select(v[0], v[1], v[2]); };
    return std::vector<te::Tensor>{broadcast_compute(ctx, inputs, body, "where")};
  };
  registry.add(std::move(def));
}

}  // namespace tessel::ops::elementwise

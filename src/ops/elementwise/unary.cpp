// Registration of unary element-wise operators from their table entries (UnaryOp).
#include "ops/elementwise/elementwise.h"

namespace tessel::ops::elementwise {

void register_unary(OpRegistry& registry, const UnaryOp& op) {
  OpDef def;
  def.name = op.name;
  def.since_version = op.since_version;
  def.attributes = op.attributes;
  // Opsets 1-5 gave many of these operators an in-place hint, consumed_inputs, which changes
  // nothing: accepted and ignored.
  if (op.since_version < 6)
    def.attributes.push_back({"consumed_inputs", graph::AttrKind::Ints, std::nullopt});
  def.pattern = PatternKind::Elementwise;
  def.infer = [op](const OpContext& ctx) {
    check_input_count(ctx, 1, 1);
    check_input_type(ctx, 0, op.types);
    graph::TensorType out = ctx.input_type(0);
    if (op.bool_result) out.dtype = ir::DataType::Bool();
    return std::vector<graph::TensorType>{out};
  };
  def.compute = [op](const OpContext& ctx, const std::vector<te::Tensor>& inputs) {
    ir::DataType out = op.bool_result ? ir::DataType::Bool() : inputs[0].dtype();
    auto body = [&](const std::vector<ir::Expr>& x) {
      return ir::cast(out, op.body(ctx, widen(x[0], op.integers_as_float)));
    };
    return std::vector<te::Tensor>{broadcast_compute(ctx, {inputs[0]}, body, stage_name(op.name))};
  };
  registry.add(std::move(def));
}

}  // namespace tessel::ops::elementwise

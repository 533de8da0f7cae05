// Registration of binary element-wise operators with numpy broadcasting from their table
// entries (BinaryOp).
#include <sstream>

#include "ops/elementwise/elementwise.h"

namespace tessel::ops::elementwise {

namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
  std::ostringstream text;
  text << "[";
  for (size_t d = 0; d < shape.size(); ++d) text << (d ? "," : "") << shape[d];
  text << "]";
  return text.str();
}

std::vector<graph::TensorType> infer_binary(const BinaryOp& op, const OpContext& ctx) {
  check_input_count(ctx, 2, 2);
  check_input_type(ctx, 0, op.types);
  if (op.b_types)
    check_input_type(ctx, 1, op.b_types);
  else
    check_same_type(ctx, 0, 1);
  if (op.validate) op.validate(ctx);
  std::vector<int64_t> shape = broadcast_input_shapes(ctx, {0, 1});
  if (op.unidirectional && shape != ctx.input_shape(0))
    ctx.fail("input 1 of shape " + shape_text(ctx.input_shape(1)) +
             " does not broadcast to the shape of input 0, " + shape_text(ctx.input_shape(0)));
  ir::DataType dtype = op.bool_result ? ir::DataType::Bool() : ctx.input_type(0).dtype;
  return {graph::TensorType::of(dtype, shape)};
}

}  // namespace

void register_binary(OpRegistry& registry, const BinaryOp& op) {
  OpDef def;
  def.name = op.name;
  def.since_version = op.since_version;
  def.attributes = op.attributes;
  def.pattern = PatternKind::Broadcast;
  def.infer = [op](const OpContext& ctx) { return infer_binary(op, ctx); };
  def.compute = [op](const OpContext& ctx, const std::vector<te::Tensor>& inputs) {
    ir::DataType out = op.bool_result ? ir::DataType::Bool() : inputs[0].dtype();
    auto body = [&](const std::vector<ir::Expr>& v) {
      return ir::cast(out, op.body(ctx, widen(v[0]), widen(v[1])));
    };
    return std::vector<te::Tensor>{
        broadcast_compute(ctx, {inputs[0], inputs[1]}, body, stage_name(op.name))};
  };
  registry.add(std::move(def));
}

}  // namespace tessel::ops::elementwise

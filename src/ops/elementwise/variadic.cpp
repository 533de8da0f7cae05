// Variadic element-wise operators with numpy broadcasting over all inputs: Sum Mean Max Min.
// Float Max and Min propagate NaN (numpy's maximum / minimum), unlike the IR's min / max.
#include <cstdint>

#include "ops/elementwise/elementwise.h"

namespace tessel::ops::elementwise {

namespace {

using ir::Expr;

struct VariadicOp {
  const char* name;
  unsigned types;
  /// Folds the inputs' elements, left to right.
  Expr (*combine)(Expr, Expr);
  /// Divides the result by the number of inputs.
  bool mean;
};

Expr maximum(Expr a, Expr b) {
  if (!a.dtype().is_float()) return ir::max(a, b);
  return ir::select(a > b || ir::is_nan(a), a, b);
}

Expr minimum(Expr a, Expr b) {
  if (!a.dtype().is_float()) return ir::min(a, b);
  return ir::select(a < b || ir::is_nan(a), a, b);
}

void register_variadic(OpRegistry& registry, const VariadicOp& op) {
  OpDef def;
  def.name = op.name;
  // Opsets 1-7 need equal shapes, a special case of broadcasting; 1-5 also had the in-place
  // hint consumed_inputs, which changes nothing.
  def.since_version = 1;
  def.attributes = {{"consumed_inputs", graph::AttrKind::Ints, std::nullopt}};
  def.pattern = PatternKind::Broadcast;
  def.infer = [op](const OpContext& ctx) {
    check_input_count(ctx, 1, SIZE_MAX);
    std::vector<size_t> inputs;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      check_input_type(ctx, i, op.types);
      check_same_type(ctx, 0, i);
      inputs.push_back(i);
    }
    return std::vector<graph::TensorType>{
        graph::TensorType::of(ctx.input_type(0).dtype, broadcast_input_shapes(ctx, inputs))};
  };
  def.compute = [op](const OpContext& ctx, const std::vector<te::Tensor>& inputs) {
    auto body = [&](const std::vector<Expr>& v) {
      Expr result = widen(v[0]);
      for (size_t i = 1; i < v.size(); ++i) result = op.combine(result, widen(v[i]));
      if (op.mean) result = result / ir::make_const(result.dtype(), static_cast<double>(v.size()));
      return ir::cast(inputs[0].dtype(), result);
    };
    return std::vector<te::Tensor>{broadcast_compute(ctx, inputs, body, stage_name(op.name))};
  };
  registry.add(std::move(def));
}

}  // namespace

void register_variadic_ops(OpRegistry& registry) {
  const VariadicOp ops[] = {
      {"Sum", kFloat, [](Expr a, Expr b) { return a + b; }, false},
      {"Mean", kFloat, [](Expr a, Expr b) { return a + b; }, true},
      {"Max", kNumeric, maximum, false},
      {"Min", kNumeric, minimum, false},
  };
  for (const VariadicOp& op : ops) register_variadic(registry, op);
}

}  // namespace tessel::ops::elementwise

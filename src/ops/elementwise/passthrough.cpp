// Operators whose inference-time result is their input: Identity, and Dropout (with an
// all-true mask as optional second output). Dropout in training mode (opset 12's
// training_mode input, or is_test = 0 before opset 7) drops each element with probability
// `ratio` and scales the others by 1 / (1 - ratio); its mask is drawn at compile time, so
// the compiler's graph rewrites replace such a node by a product with a constant
// (passes/rules/random_rules.cpp).
#include "ops/elementwise/dropout.h"
#include "ops/elementwise/elementwise.h"

namespace tessel::ops::elementwise {

ir::DataType dropout_mask_type(const OpContext& ctx) {
  return ctx.opset() < 10 ? ctx.input_type(0).dtype : ir::DataType::Bool();
}

double dropout_ratio(const OpContext& ctx) {
  // Before opset 7, is_test = 0 meant training; from opset 12 the ratio and the training
  // mode are inputs (defaults 0.5 and false).
  if (ctx.opset() < 7) return ctx.attr_int("is_test") == 0 ? ctx.attr_float("ratio") : 0;
  if (ctx.opset() < 12 || !ctx.has_input(2) || ctx.input_ints(2).at(0) == 0) return 0;
  double ratio = ctx.has_input(1) ? ctx.input_floats(1).at(0) : 0.5;
  if (!(ratio >= 0 && ratio <= 1))
    ctx.fail("the ratio is " + std::to_string(ratio) + ", expected 0 to 1");
  return ratio;
}

namespace {

bool wants_mask(const OpContext& ctx) {
  return ctx.node().outputs.size() > 1 && ctx.node().outputs[1] != nullptr;
}

std::vector<graph::TensorType> infer_dropout(const OpContext& ctx) {
  check_input_count(ctx, 1, ctx.opset() >= 12 ? 3 : 1);
  check_input_type(ctx, 0, kFloat);
  dropout_ratio(ctx);
  graph::TensorType out = ctx.input_type(0);
  if (!wants_mask(ctx)) return {out};
  graph::TensorType mask = out;
  mask.dtype = dropout_mask_type(ctx);
  return {out, mask};
}

std::vector<te::Tensor> compute_dropout(const OpContext& ctx,
                                        const std::vector<te::Tensor>& inputs) {
  if (dropout_ratio(ctx) > 0)
    ctx.fail(
        "in training mode its mask is drawn at compile time: the compiler's graph "
        "rewrites replace it (run it through the compiler, not node by node)");
  std::vector<int64_t> shape = ctx.input_shape(0);
  std::vector<te::Tensor> outputs = {te::compute(
      shape_exprs(shape),
      [&](const std::vector<te::Var>& index) {
        return inputs[0](std::vector<ir::Expr>(index.begin(), index.end()));
      },
      "dropout")};
  if (wants_mask(ctx))
    outputs.push_back(te::compute(
        shape_exprs(shape),
        [&](const std::vector<te::Var>&) { return ir::make_const(dropout_mask_type(ctx), 1); },
        "dropout_mask"));
  return outputs;
}

}  // namespace

void register_passthrough_ops(OpRegistry& registry) {
  UnaryOp identity;
  identity.name = "Identity";
  identity.types = kAnyType;
  identity.body = [](const OpContext&, const ir::Expr& x) { return x; };
  register_unary(registry, identity);

  OpDef dropout;
  dropout.name = "Dropout";
  dropout.since_version = 1;
  dropout.attributes = {float_attr("ratio", 0.5),
                        {"seed", graph::AttrKind::Int, std::nullopt},
                        {"is_test", graph::AttrKind::Int, graph::Attribute::of_int(0)},
                        {"consumed_inputs", graph::AttrKind::Ints, std::nullopt}};
  dropout.pattern = PatternKind::Elementwise;
  dropout.value_inputs = {1, 2};
  dropout.infer = infer_dropout;
  dropout.compute = compute_dropout;
  registry.add(std::move(dropout));
}

}  // namespace tessel::ops::elementwise

// Operators whose inference-time result is their input: Identity, and Dropout (with an
// all-true mask as optional second output). Dropout in training mode with a non-zero ratio
// draws random numbers and is not supported.
#include "ops/elementwise/elementwise.h"

namespace tessel::ops::elementwise {

namespace {

/// Dropout's mask type: the input's type before opset 10, bool after.
ir::DataType mask_type(const OpContext& ctx) {
  return ctx.opset() < 10 ? ctx.input_type(0).dtype : ir::DataType::Bool();
}

bool wants_mask(const OpContext& ctx) {
  return ctx.node().outputs.size() > 1 && ctx.node().outputs[1] != nullptr;
}

std::vector<graph::TensorType> infer_dropout(const OpContext& ctx) {
  check_input_count(ctx, 1, ctx.opset() >= 12 ? 3 : 1);
  check_input_type(ctx, 0, kFloat);
  // Before opset 7, is_test = 0 meant training.
  if (ctx.opset() < 7 && ctx.attr_int("is_test") == 0 && ctx.attr_float("ratio") != 0)
    ctx.fail("training mode (is_test = 0) is not supported: dropout would draw random numbers");
  // From opset 12 the ratio and the training mode are inputs (defaults 0.5 and false).
  if (ctx.has_input(2) && ctx.input_ints(2).at(0) != 0) {
    double ratio = ctx.has_input(1) ? ctx.input_floats(1).at(0) : 0.5;
    if (ratio != 0)
      ctx.fail("training mode is not supported (ratio " + std::to_string(ratio) +
               "): dropout would draw random numbers");
  }
  graph::TensorType out = ctx.input_type(0);
  if (!wants_mask(ctx)) return {out};
  graph::TensorType mask = out;
  mask.dtype = mask_type(ctx);
  return {out, mask};
}

std::vector<te::Tensor> compute_dropout(const OpContext& ctx,
                                        const std::vector<te::Tensor>& inputs) {
  auto copy = [](const std::vector<ir::Expr>& v) { return v[0]; };
  std::vector<te::Tensor> outputs = {broadcast_compute(ctx, {inputs[0]}, copy, "dropout")};
  if (wants_mask(ctx)) {
    ir::Expr all_true = ir::make_const(mask_type(ctx), 1);
    outputs.push_back(te::compute(
        inputs[0].shape(), [&](const std::vector<te::Var>&) { return all_true; }, "dropout_mask"));
  }
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
                        {"seed", graph::AttrKind::Int, graph::Attribute::of_int(0)},
                        {"is_test", graph::AttrKind::Int, graph::Attribute::of_int(0)},
                        {"consumed_inputs", graph::AttrKind::Ints, std::nullopt}};
  dropout.pattern = PatternKind::Elementwise;
  dropout.value_inputs = {1, 2};
  dropout.infer = infer_dropout;
  dropout.compute = compute_dropout;
  registry.add(std::move(dropout));
}

}  // namespace tessel::ops::elementwise

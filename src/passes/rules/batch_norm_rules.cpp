// BatchNormalization in inference form after a Conv or Gemm, folded into the weights and
// bias: y = (W x + b - mean) * s + B with s = scale / sqrt(var + epsilon) becomes
// (W s) x + (b s + B - mean s). The new weights are emitted as operators over the
// constants, which fold_constants then evaluates.
#include "passes/rules/rules.h"

namespace tessel::passes {

namespace {

std::optional<Match> match_batch_norm(const MatchContext& ctx, const graph::Node& bn) {
  if (bn.inputs.size() != 5 || !bn.outputs[0]) return std::nullopt;
  for (size_t k = 1; k < bn.outputs.size(); ++k)
    if (bn.outputs[k]) return std::nullopt;
  const graph::Attribute* training = bn.attribute("training_mode");
  if (training && training->i != 0) return std::nullopt;
  for (size_t i = 1; i < 5; ++i)
    if (!bn.inputs[i] || !ctx.is_static(bn.inputs[i]) || !is_float(bn.inputs[i]))
      return std::nullopt;
  const graph::Node* linear = bn.inputs[0]->producer;
  // BatchNormalization's channels are axis 1; a MatMul would need a bias input for the shift.
  if (!linear || linear->op_type == "MatMul" || !takes_channel_affine(ctx, *linear) ||
      channel_axis(*linear) != 1)
    return std::nullopt;
  Match match;
  match.interior = {linear};
  const graph::Attribute* epsilon = bn.attribute("epsilon");
  match.params["epsilon"] = graph::Attribute::of_float(epsilon ? epsilon->f : 1e-5);
  return match;
}

void fold_batch_norm(const Match& match, Rewriter& rw) {
  const graph::Node& bn = *match.anchor;
  graph::Value* scale = rw.value(bn.inputs[1]);
  graph::Value* bias = rw.value(bn.inputs[2]);
  graph::Value* mean = rw.value(bn.inputs[3]);
  graph::Value* var = rw.value(bn.inputs[4]);
  graph::Value* epsilon = rw.fill(match.params.at("epsilon").f, {}, bn.inputs[4]->type.dtype);
  graph::Value* s = rw.op("Div", {scale, rw.op("Sqrt", {rw.op("Add", {var, epsilon})})});
  graph::Value* shift = rw.op("Sub", {bias, rw.op("Mul", {mean, s})}, {}, "shift");
  emit_channel_affine(rw, *match.interior[0], s, shift);
}

}  // namespace

std::vector<RewriteRule> batch_norm_rules() {
  return {{"fold_batch_norm", "BatchNormalization", match_batch_norm, fold_batch_norm}};
}

}  // namespace tessel::passes

// BatchNormalization in inference form after a Conv or Gemm, folded into the weights and
// bias: y = (W x + b - mean) * s + B with s = scale / sqrt(var + epsilon) becomes
// (W s) x + (b s + B - mean s). Elsewhere (after a Concat, say) it becomes the per-channel
// affine x * s + (B - mean s), which element-wise fusion and the blocked layout take like
// any Mul and Add. The new constants are emitted as operators over the constants, which
// fold_constants then evaluates.
#include "passes/rules/rules.h"

namespace tessel::passes {

namespace {

/// A BatchNormalization in inference form with static parameters and one output: its
/// match (epsilon in params), without interior nodes yet.
std::optional<Match> match_inference_batch_norm(const MatchContext& ctx, const graph::Node& bn) {
  if (bn.inputs.size() != 5 || !bn.outputs[0]) return std::nullopt;
  for (size_t k = 1; k < bn.outputs.size(); ++k)
    if (bn.outputs[k]) return std::nullopt;
  const graph::Attribute* training = bn.attribute("training_mode");
  if (training && training->i != 0) return std::nullopt;
  for (size_t i = 1; i < 5; ++i)
    if (!bn.inputs[i] || !ctx.is_static(bn.inputs[i]) || !is_float(bn.inputs[i]))
      return std::nullopt;
  Match match;
  const graph::Attribute* epsilon = bn.attribute("epsilon");
  match.params["epsilon"] = graph::Attribute::of_float(epsilon ? epsilon->f : 1e-5);
  return match;
}

std::optional<Match> match_batch_norm(const MatchContext& ctx, const graph::Node& bn) {
  std::optional<Match> match = match_inference_batch_norm(ctx, bn);
  if (!match) return std::nullopt;
  const graph::Node* linear = bn.inputs[0]->producer;
  // BatchNormalization's channels are axis 1; a MatMul would need a bias input for the shift.
  if (!linear || linear->op_type == "MatMul" || !takes_channel_affine(ctx, *linear) ||
      channel_axis(*linear) != 1)
    return std::nullopt;
  match->interior = {linear};
  return match;
}

std::optional<Match> match_channel_affine(const MatchContext& ctx, const graph::Node& bn) {
  const graph::TensorType& x = bn.inputs.empty() || !bn.inputs[0] ? graph::TensorType{}
                                                                   : bn.inputs[0]->type;
  if (!x.has_static_shape() || x.rank() < 2) return std::nullopt;
  return match_inference_batch_norm(ctx, bn);
}

/// The scale s = scale / sqrt(var + epsilon) and the shift B - mean s, vectors over the
/// channels.
std::pair<graph::Value*, graph::Value*> scale_and_shift(const Match& match, Rewriter& rw) {
  const graph::Node& bn = *match.anchor;
  graph::Value* scale = rw.value(bn.inputs[1]);
  graph::Value* bias = rw.value(bn.inputs[2]);
  graph::Value* mean = rw.value(bn.inputs[3]);
  graph::Value* var = rw.value(bn.inputs[4]);
  graph::Value* epsilon = rw.fill(match.params.at("epsilon").f, {}, bn.inputs[4]->type.dtype);
  graph::Value* s = rw.op("Div", {scale, rw.op("Sqrt", {rw.op("Add", {var, epsilon})})});
  graph::Value* shift = rw.op("Sub", {bias, rw.op("Mul", {mean, s})}, {}, "shift");
  return {s, shift};
}

void fold_batch_norm(const Match& match, Rewriter& rw) {
  auto [s, shift] = scale_and_shift(match, rw);
  emit_channel_affine(rw, *match.interior[0], s, shift);
}

void as_channel_affine(const Match& match, Rewriter& rw) {
  const graph::Node& bn = *match.anchor;
  auto [s, shift] = scale_and_shift(match, rw);
  // [C] -> [1, C, 1, ..., 1], of the input's rank: one per channel (axis 1), broadcast over
  // the other axes.
  std::vector<int64_t> channel_shape(static_cast<size_t>(bn.inputs[0]->type.rank()), 1);
  channel_shape[1] = -1;
  graph::Value* shape = rw.ints(channel_shape);
  graph::Value* scaled = rw.op(
      "Mul", {rw.value(bn.inputs[0]), rw.op("Reshape", {s, shape}, {}, "scale")}, {}, "scaled");
  rw.add_node("Add", {scaled, rw.op("Reshape", {shift, shape}, {}, "offset")}, {rw.output()});
}

}  // namespace

std::vector<RewriteRule> batch_norm_rules() {
  return {{"fold_batch_norm", "BatchNormalization", match_batch_norm, fold_batch_norm},
          {"batch_norm_as_channel_affine", "BatchNormalization", match_channel_affine,
           as_channel_affine}};
}

}  // namespace tessel::passes

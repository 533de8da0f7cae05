// Linear operators absorbing what follows them:
//  - MatMul + Add of a bias that varies along the last axis only becomes one operator with
//    a bias: Gemm for matrices, tessel.MatMulAdd otherwise;
//  - a Mul by a static tensor that varies along the output channels only (Conv: [C, 1, 1];
//    Gemm, MatMul: [N]) scales the weights (and bias), an Add of one shifts the bias
//    (Conv, Gemm).
#include <functional>

#include "executor/node_kernel.h"
#include "passes/rules/rules.h"

namespace tessel::passes {

namespace {

/// The operand of binary `node` produced by a node that `accept`s, and the other operand
/// when it is static and float.
std::optional<Match> match_linear_operand(const MatchContext& ctx, const graph::Node& node,
                                          const std::function<bool(const graph::Node&)>& accept) {
  if (node.inputs.size() != 2 || !node.inputs[0] || !node.inputs[1]) return std::nullopt;
  for (size_t i = 0; i < 2; ++i) {
    const graph::Node* linear = node.inputs[i]->producer;
    const graph::Value* other = node.inputs[1 - i];
    if (!linear || !accept(*linear) || !ctx.is_static(other) || !is_float(other)) continue;
    Match match;
    match.interior = {linear};
    match.values = {other};
    return match;
  }
  return std::nullopt;
}

std::optional<Match> match_matmul_bias(const MatchContext& ctx, const graph::Node& add) {
  return match_linear_operand(ctx, add, [&](const graph::Node& matmul) {
    if (!ctx.producer(matmul.outputs[0], "MatMul")) return false;
    const graph::TensorType& out = matmul.outputs[0]->type;
    return out.rank() >= 1 && varies_along(add.inputs[0] == matmul.outputs[0] ? add.inputs[1]->type
                                                                              : add.inputs[0]->type,
                                           out, out.rank() - 1);
  });
}

void fuse_matmul_bias(const Match& match, Rewriter& rw) {
  const graph::Node& matmul = *match.interior[0];
  graph::Value* a = rw.value(matmul.inputs[0]);
  graph::Value* b = rw.value(matmul.inputs[1]);
  graph::Value* bias = rw.op("Reshape", {rw.value(match.values[0]), rw.ints({-1})}, {}, "bias");
  if (matmul.inputs[0]->type.rank() == 2 && matmul.inputs[1]->type.rank() == 2)
    rw.add_node("Gemm", {a, b, bias}, {rw.output(0)});
  else
    rw.add_node("MatMulAdd", {a, b, bias}, {rw.output(0)}, {}, 1, executor::kTesselDomain);
}

/// A Mul (`with_shift` false) or Add (true) of a per-channel static tensor after a linear
/// operator.
std::optional<Match> match_channel_affine(const MatchContext& ctx, const graph::Node& node,
                                          bool with_shift) {
  return match_linear_operand(ctx, node, [&](const graph::Node& linear) {
    if (!takes_channel_affine(ctx, linear) || (with_shift && linear.op_type == "MatMul"))
      return false;
    const graph::Value* y = linear.outputs[0];
    const graph::Value* c = node.inputs[0] == y ? node.inputs[1] : node.inputs[0];
    return varies_along(c->type, y->type, channel_axis(linear));
  });
}

void fold_channel_affine(const Match& match, Rewriter& rw) {
  const graph::Node& linear = *match.interior[0];
  int64_t channels = linear.outputs[0]->type.dims[channel_axis(linear)].value;
  graph::Value* c = channel_vector(rw, match.values[0], channels);
  bool shift = match.anchor->op_type == "Add";
  emit_channel_affine(rw, linear, shift ? nullptr : c, shift ? c : nullptr);
}

}  // namespace

std::vector<RewriteRule> linear_rules() {
  return {
      {"fuse_matmul_bias", "Add", match_matmul_bias, fuse_matmul_bias},
      {"fold_shift_into_linear", "Add",
       [](const MatchContext& ctx, const graph::Node& node) {
         return match_channel_affine(ctx, node, true);
       },
       fold_channel_affine},
      {"fold_scale_into_linear", "Mul",
       [](const MatchContext& ctx, const graph::Node& node) {
         return match_channel_affine(ctx, node, false);
       },
       fold_channel_affine},
  };
}

}  // namespace tessel::passes

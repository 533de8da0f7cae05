// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (the same loss on the log-softmax
// of the scores, which it can also output).
//
// For scores s[N, C, d...] and targets t[N, d...], the loss of an element is
// -s[n, t, d...] * w, where w is weight[t] (1 without weights) and 0 where t equals
// ignore_index; "none" outputs these, "sum" their sum, "mean" their sum divided by the sum
// of the w. Ignored targets may lie outside [0, C): loads use the target clamped into range.
#include "ops/op_util.h"
#include "ops/reduction/reduction_ops.h"
#include "ops/reduction/reduction_util.h"
#include "ops/reduction/softmax_ops.h"

namespace tessel::ops::reduction {
namespace {

using graph::Attribute;
using graph::AttrKind;
using ir::Expr;

enum class Reduction { None, Sum, Mean };

/// Checks the inputs and attributes; returns the reduction.
Reduction loss_reduction(const OpContext& ctx) {
  check_float_input(ctx, 0, "input 0 (scores)");
  std::vector<int64_t> scores = ctx.input_shape(0);
  if (scores.size() < 2)
    ctx.fail("input 0 (scores) " + shape_text(scores) + " must have rank >= 2: [N, C, ...]");
  std::vector<int64_t> expected = scores;
  expected.erase(expected.begin() + 1);
  if (ctx.input_shape(1) != expected)
    ctx.fail("input 1 (target) has shape " + shape_text(ctx.input_shape(1)) + ", expected " +
             shape_text(expected));
  ir::DataType target = ctx.input_type(1).dtype;
  if (target != ir::DataType::Int(32) && target != ir::DataType::Int(64))
    ctx.fail("input 1 (target) must be int32 or int64, found " + target.to_string());
  if (ctx.has_input(2) && ctx.input_shape(2) != std::vector<int64_t>{scores[1]})
    ctx.fail("input 2 (weight) has shape " + shape_text(ctx.input_shape(2)) + ", expected [" +
             std::to_string(scores[1]) + "]");
  std::string reduction = ctx.attr_string("reduction");
  if (reduction == "none") return Reduction::None;
  if (reduction == "sum") return Reduction::Sum;
  if (reduction == "mean") return Reduction::Mean;
  ctx.fail("attribute 'reduction' is '" + reduction + "', expected none, sum or mean");
}

/// The loss of `log_prob` (log-probabilities [N, C, d...]) against the targets.
te::Tensor nll_loss(const OpContext& ctx, const te::Tensor& log_prob, const te::Tensor& target,
                    const te::Tensor& weight, const std::string& name) {
  Reduction reduction = loss_reduction(ctx);
  std::vector<int64_t> shape = te::static_shape(target);
  int64_t classes = te::static_shape(log_prob)[1];
  ir::DataType dtype = log_prob.dtype();
  ir::DataType acc = float_compute_type(dtype);
  bool ignores = ctx.has_attr("ignore_index");
  auto cls = [&](const std::vector<Expr>& q) { return ir::cast(ir::DataType::Index(), target(q)); };
  auto clamped = [&](const std::vector<Expr>& q) {
    return ir::min(ir::max(cls(q), ir::make_int(0)), ir::make_int(classes - 1));
  };
  auto element_weight = [&](const std::vector<Expr>& q) {
    Expr w = weight.defined() ? ir::cast(acc, weight(clamped(q))) : ir::make_const(acc, 1);
    if (!ignores) return w;
    return ir::select(cls(q) == ctx.attr_int("ignore_index"), ir::make_const(acc, 0), w);
  };
  auto loss = [&](const std::vector<Expr>& q) {
    std::vector<Expr> p = q;
    p.insert(p.begin() + 1, clamped(q));
    return -ir::cast(acc, log_prob(p)) * element_weight(q);
  };
  if (reduction == Reduction::None) {
    auto narrow = [&](const std::vector<Expr>& q) { return ir::cast(dtype, loss(q)); };
    return map_over(shape, narrow, name);
  }
  std::vector<int64_t> all = trailing_axes(0, static_cast<int64_t>(shape.size()));
  te::Tensor total = reduce_over(shape, all, false, ir::ReduceOp::Sum, loss, name + ".sum");
  te::Tensor weights;
  if (reduction == Reduction::Mean)
    weights = reduce_over(shape, all, false, ir::ReduceOp::Sum, element_weight, name + ".weights");
  auto finish = [&](const std::vector<Expr>&) {
    return ir::cast(dtype, weights.defined() ? total() / weights() : total());
  };
  return map_over({}, finish, name);
}

/// The loss operator `name`; with `softmax`, the loss of the log-softmax of the scores
/// over axis 1, which is also output 1 when the node asks for it.
OpDef loss_def(const std::string& name, bool softmax) {
  OpDef def;
  def.name = name;
  def.since_version = 12;
  def.attributes = {{"reduction", AttrKind::String, Attribute::of_string("mean")},
                    {"ignore_index", AttrKind::Int, std::nullopt}};
  def.pattern = PatternKind::Reduction;
  def.infer = [softmax](const OpContext& ctx) {
    Reduction reduction = loss_reduction(ctx);
    std::vector<int64_t> loss_shape;
    if (reduction == Reduction::None) loss_shape = ctx.input_shape(1);
    std::vector types{graph::TensorType::of(ctx.input_type(0).dtype, loss_shape)};
    if (softmax) types.push_back(ctx.input_type(0));
    return types;
  };
  def.compute = [softmax](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    te::Tensor weight = ctx.has_input(2) ? in[2] : te::Tensor();
    te::Tensor log_prob =
        softmax ? softmax_over(SoftmaxKind::LogSoftmax, in[0], {1}, "loss.log_prob") : in[0];
    te::Tensor loss = nll_loss(ctx, log_prob, in[1], weight, "loss");
    if (!softmax || ctx.node().outputs.size() < 2) return std::vector{loss};
    return std::vector{loss, log_prob};
  };
  return def;
}

}  // namespace

void register_loss_ops(OpRegistry& registry) {
  registry.add(loss_def("NegativeLogLikelihoodLoss", false));
  registry.add(loss_def("SoftmaxCrossEntropyLoss", true));
}

}  // namespace tessel::ops::reduction

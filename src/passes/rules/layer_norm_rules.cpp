// Layer normalisation written with ReduceMean (torch.onnx.export for opsets 13-16):
//   mean = ReduceMean(x), d = x - mean, var = ReduceMean(Pow(d, 2)),
//   n = d / Sqrt(var + epsilon), y = n * gamma + beta
// The core (up to the Div) becomes LayerNormalization(x, ones) over the reduced trailing
// axes (opset 17); a Mul then an Add by a static tensor after a LayerNormalization fold
// into its scale and bias, so the affine part and its variants (no affine, scale only)
// follow in the next sweeps.
#include <algorithm>

#include "passes/rules/rules.h"

namespace tessel::passes {

namespace {

constexpr int kLayerNormOpset = 17;

/// The axes of a ReduceMean keeping its dimensions, normalised and sorted; nullopt when
/// they are not known or keepdims is 0.
std::optional<std::vector<int64_t>> kept_axes(const graph::Node& mean) {
  const graph::Attribute* keepdims = mean.attribute("keepdims");
  if (keepdims && keepdims->i == 0) return std::nullopt;
  std::vector<int64_t> axes;
  if (const graph::Attribute* attr = mean.attribute("axes")) {
    axes = attr->ints;
  } else if (mean.inputs.size() > 1 && mean.inputs[1] && mean.inputs[1]->is_constant()) {
    const runtime::NDArray& data = *mean.inputs[1]->constant;
    if (data.dtype() != runtime::DType::Int(64)) return std::nullopt;
    axes.assign(data.data_as<int64_t>(), data.data_as<int64_t>() + data.size());
  } else {
    return std::nullopt;
  }
  int64_t rank = mean.inputs[0]->type.rank();
  for (int64_t& axis : axes) {
    if (axis < -rank || axis >= rank) return std::nullopt;
    if (axis < 0) axis += rank;
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

/// Whether `v` is d * d or Pow(d, 2); adds its node to `interior`.
bool is_square_of(const MatchContext& ctx, const graph::Value* v, const graph::Value* d,
                  std::vector<const graph::Node*>& interior) {
  const graph::Node* node = ctx.producer(v, "Pow");
  bool ok = node && node->inputs[0] == d && ctx.scalar(node->inputs[1]) == 2.0;
  if (!ok) {
    node = ctx.producer(v, "Mul");
    ok = node && node->inputs[0] == d && node->inputs[1] == d;
  }
  if (ok) interior.push_back(node);
  return ok;
}

/// var + epsilon, either order; returns var and sets `epsilon`.
const graph::Value* added_epsilon(const MatchContext& ctx, const graph::Node& add,
                                  double& epsilon) {
  for (size_t i = 0; i < 2; ++i)
    if (std::optional<double> eps = ctx.scalar(add.inputs[1 - i])) {
      epsilon = *eps;
      return add.inputs[i];
    }
  return nullptr;
}

std::optional<Match> match_layer_norm(const MatchContext& ctx, const graph::Node& div) {
  Match match;
  const graph::Node* sub = ctx.producer(div.inputs[0], "Sub");
  const graph::Node* sqrt = ctx.producer(div.inputs[1], "Sqrt");
  if (!sub || !sqrt) return std::nullopt;
  const graph::Value* x = sub->inputs[0];
  const graph::Node* mean = ctx.producer(sub->inputs[1], "ReduceMean");
  const graph::Node* add = ctx.producer(sqrt->inputs[0], "Add");
  if (!mean || mean->inputs[0] != x || !add || !is_float(x)) return std::nullopt;
  double epsilon = 0;
  const graph::Node* var = ctx.producer(added_epsilon(ctx, *add, epsilon), "ReduceMean");
  if (!var || !is_square_of(ctx, var->inputs[0], div.inputs[0], match.interior))
    return std::nullopt;
  std::optional<std::vector<int64_t>> axes = kept_axes(*mean);
  if (!axes || axes->empty() || axes != kept_axes(*var)) return std::nullopt;
  int64_t rank = x->type.rank(), first = axes->front();
  for (size_t k = 0; k < axes->size(); ++k)
    if ((*axes)[k] != first + static_cast<int64_t>(k)) return std::nullopt;
  if (axes->back() != rank - 1) return std::nullopt;
  match.interior.insert(match.interior.end(), {mean, sub, var, add, sqrt});
  match.values = {x};
  match.params["axis"] = graph::Attribute::of_int(first);
  match.params["epsilon"] = graph::Attribute::of_float(epsilon);
  return match;
}

void replace_layer_norm(const Match& match, Rewriter& rw) {
  const graph::Value* x = match.values[0];
  int64_t axis = match.params.at("axis").i;
  std::vector<int64_t> shape = x->type.shape();
  std::vector<int64_t> normalized(shape.begin() + axis, shape.end());
  std::map<std::string, graph::Attribute> attributes = {{"axis", match.params.at("axis")},
                                                        {"epsilon", match.params.at("epsilon")}};
  // Statistics in float64 for float64 data (the default stash type is float32).
  if (x->type.dtype.bits == 64) attributes["stash_type"] = graph::Attribute::of_int(11);
  rw.add_node("LayerNormalization", {rw.value(x), rw.fill(1.0, normalized, x->type.dtype)},
              {rw.output(0)}, attributes, kLayerNormOpset);
}

/// Mul or Add of a static float tensor after a LayerNormalization whose statistics outputs
/// are unused, not broadcasting its output further.
std::optional<Match> match_layer_norm_affine(const MatchContext& ctx, const graph::Node& node) {
  if (node.inputs.size() != 2 || !node.inputs[0] || !node.inputs[1]) return std::nullopt;
  for (size_t i = 0; i < 2; ++i) {
    const graph::Node* norm = ctx.producer(node.inputs[i], "LayerNormalization");
    const graph::Value* c = node.inputs[1 - i];
    if (!norm || norm->outputs[0] != node.inputs[i] || !ctx.is_static(c) || !is_float(c) ||
        node.outputs[0]->type != node.inputs[i]->type)
      continue;
    bool statistics_unused = true;
    for (size_t k = 1; k < norm->outputs.size(); ++k)
      statistics_unused &= ctx.unused(norm->outputs[k]);
    if (!statistics_unused) continue;
    Match match;
    match.interior = {norm};
    match.values = {c};
    return match;
  }
  return std::nullopt;
}

void fold_layer_norm_affine(const Match& match, Rewriter& rw) {
  const graph::Node& norm = *match.interior[0];
  graph::Value* c = rw.value(match.values[0]);
  graph::Value* scale = rw.value(norm.inputs[1]);
  bool has_bias = norm.inputs.size() > 2 && norm.inputs[2];
  graph::Value* bias = has_bias ? rw.value(norm.inputs[2]) : nullptr;
  if (match.anchor->op_type == "Mul") {
    scale = rw.op("Mul", {scale, c}, {}, "scale");
    if (bias) bias = rw.op("Mul", {bias, c}, {}, "bias");
  } else {
    bias = bias ? rw.op("Add", {bias, c}, {}, "bias") : c;
  }
  std::vector<graph::Value*> inputs = {rw.value(norm.inputs[0]), scale};
  if (bias) inputs.push_back(bias);
  rw.add_node("LayerNormalization", inputs, {rw.output(0)}, norm.attributes, norm.opset);
}

}  // namespace

std::vector<RewriteRule> layer_norm_rules() {
  return {
      {"recognise_layer_norm", "Div", match_layer_norm, replace_layer_norm},
      {"fold_scale_into_layer_norm", "Mul", match_layer_norm_affine, fold_layer_norm_affine},
      {"fold_bias_into_layer_norm", "Add", match_layer_norm_affine, fold_layer_norm_affine},
  };
}

}  // namespace tessel::passes

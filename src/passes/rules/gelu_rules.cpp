// The Erf form of GELU, x * 0.5 * (1 + erf(x / sqrt(2))), recognised as one Gelu operator.
// torch.onnx.export writes it as Div(x, 1.4142135) -> Erf -> Add 1 -> Mul x -> Mul 0.5; the
// rule accepts the three factors x, (1 + erf(..)) and 0.5 in any order and grouping, the
// Add's operands in either order, and Mul by 1/sqrt(2) for the Div.
#include <cmath>

#include "passes/rules/rules.h"

namespace tessel::passes {

namespace {

/// The factors of the product computed by `v`: the operands of the Mul nodes that only
/// this product reads, `depth` levels down; the Mul nodes go to `interior`.
void collect_factors(const MatchContext& ctx, const graph::Value* v, int depth,
                     std::vector<const graph::Value*>& factors,
                     std::vector<const graph::Node*>& interior) {
  const graph::Node* mul = ctx.producer(v, "Mul");
  if (depth == 0 || !mul || ctx.users(v).size() != 1 || ctx.is_graph_output(v)) {
    factors.push_back(v);
    return;
  }
  interior.push_back(mul);
  for (const graph::Value* in : mul->inputs) collect_factors(ctx, in, depth - 1, factors, interior);
}

/// Whether `v` is erf(x / sqrt(2)) (or erf(x * 1/sqrt(2))); adds the nodes to `interior`.
bool is_erf_of_scaled(const MatchContext& ctx, const graph::Value* v, const graph::Value* x,
                      std::vector<const graph::Node*>& interior) {
  const graph::Node* erf = ctx.producer(v, "Erf");
  if (!erf) return false;
  const graph::Value* arg = erf->inputs[0];
  const graph::Node* scale = ctx.producer(arg, "Div");
  bool ok = scale && scale->inputs[0] == x && ctx.scalar(scale->inputs[1]) &&
            near(*ctx.scalar(scale->inputs[1]), std::sqrt(2.0));
  if (!ok) {
    scale = ctx.producer(arg, "Mul");
    for (size_t i = 0; scale && !ok && i < 2; ++i)
      ok = scale->inputs[i] == x && ctx.scalar(scale->inputs[1 - i]) &&
           near(*ctx.scalar(scale->inputs[1 - i]), std::sqrt(0.5));
  }
  if (!ok) return false;
  interior.push_back(erf);
  interior.push_back(scale);
  return true;
}

/// Whether `v` is 1 + erf(x / sqrt(2)) for some x among `factors` (returned in `x`).
bool is_one_plus_erf(const MatchContext& ctx, const graph::Value* v,
                     const std::vector<const graph::Value*>& factors, const graph::Value*& x,
                     std::vector<const graph::Node*>& interior) {
  const graph::Node* add = ctx.producer(v, "Add");
  if (!add) return false;
  for (size_t i = 0; i < 2; ++i) {
    std::optional<double> one = ctx.scalar(add->inputs[1 - i]);
    if (!one || !near(*one, 1.0)) continue;
    for (const graph::Value* candidate : factors)
      if (candidate != v && is_erf_of_scaled(ctx, add->inputs[i], candidate, interior)) {
        x = candidate;
        interior.push_back(add);
        return true;
      }
  }
  return false;
}

std::optional<Match> match_gelu(const MatchContext& ctx, const graph::Node& mul) {
  std::vector<const graph::Value*> factors;
  Match match;
  for (const graph::Value* in : mul.inputs) collect_factors(ctx, in, 1, factors, match.interior);
  if (factors.size() != 3) return std::nullopt;
  for (const graph::Value* half : factors) {
    std::optional<double> value = ctx.scalar(half);
    if (!value || !near(*value, 0.5)) continue;
    for (const graph::Value* sum : factors) {
      const graph::Value* x = nullptr;
      if (sum == half || !is_one_plus_erf(ctx, sum, factors, x, match.interior)) continue;
      if (x == half || !is_float(x) || x->type != mul.outputs[0]->type) return std::nullopt;
      match.values = {x};
      return match;
    }
  }
  return std::nullopt;
}

void replace_gelu(const Match& match, Rewriter& rw) {
  rw.add_node("Gelu", {rw.value(match.values[0])}, {rw.output(0)}, {}, 20);
}

}  // namespace

std::vector<RewriteRule> gelu_rules() {
  return {{"recognise_gelu", "Mul", match_gelu, replace_gelu}};
}

}  // namespace tessel::passes

// The random operators that read their inputs' values take their draws from NumPy's
// RandomState seeded by the node (ops/elementwise/random_state.h), drawn here at compile
// time as constants:
// - Dropout in training mode: its input times a constant of 1 / (1 - ratio) where the draw
//   lies at or above the ratio and 0 elsewhere; its mask output that constant's pattern.
// - Bernoulli(p): NumPy's binomial(1, p), one draw u each: u > 1 - p where p <= 1/2, else
//   u <= p, as element-wise comparisons in double.
// - Multinomial: tessel.MultinomialOfDraws, given one draw per sample.
#include "executor/node_kernel.h"
#include "graph/onnx_dtype.h"
#include "ops/elementwise/dropout.h"
#include "ops/elementwise/random_state.h"
#include "passes/rules/rules.h"
#include "runtime/ndarray_element.h"
#include "support/error.h"

namespace tessel::passes {

namespace {

using ops::elementwise::random_seed;
using ops::elementwise::RandomState;

const ir::DataType kF64 = ir::DataType::Float(64);

/// `node`'s context with its inputs' types and the constants they hold.
ops::OpContext context_of(const graph::Node& node) {
  return executor::context_of_graph_values(node, executor::find_op(node));
}

/// The node's uniform draws, one per element of `shape`, as a float64 constant.
graph::Value* uniform_draws(Rewriter& rw, const graph::Node& node,
                            const std::vector<int64_t>& shape) {
  runtime::NDArray draws(shape, runtime::DType::Float(64));
  RandomState state(random_seed(node));
  for (int64_t k = 0; k < draws.size(); ++k) draws.data_as<double>()[k] = state.uniform();
  return rw.constant(std::move(draws));
}

std::optional<Match> match_training_dropout(const MatchContext&, const graph::Node& node) {
  if (node.inputs.empty() || !node.inputs[0]) return std::nullopt;
  for (size_t i = 1; i < node.inputs.size(); ++i)
    if (node.inputs[i] && !node.inputs[i]->is_constant()) return std::nullopt;
  if (ops::elementwise::dropout_ratio(context_of(node)) == 0) return std::nullopt;
  return Match{};
}

void draw_dropout_mask(const Match& match, Rewriter& rw) {
  const graph::Node& node = *match.anchor;
  ops::OpContext ctx = context_of(node);
  double ratio = ops::elementwise::dropout_ratio(ctx);
  double kept_scale = ratio < 1 ? 1 / (1 - ratio) : 0;
  const graph::TensorType& x = node.inputs[0]->type;
  runtime::NDArray scale(x.shape(), graph::to_runtime_dtype(x.dtype));
  runtime::NDArray mask(x.shape(),
                        graph::to_runtime_dtype(ops::elementwise::dropout_mask_type(ctx)));
  RandomState state(random_seed(node));
  for (int64_t k = 0; k < scale.size(); ++k) {
    bool kept = state.uniform() >= ratio;
    runtime::set_element_from_double(scale, k, kept ? kept_scale : 0);
    runtime::set_element_from_double(mask, k, kept ? 1 : 0);
  }
  rw.add_node("Mul", {rw.value(node.inputs[0]), rw.constant(std::move(scale))}, {rw.output(0)});
  if (node.outputs.size() > 1 && node.outputs[1])
    rw.add_node("Identity", {rw.constant(std::move(mask))}, {rw.output(1)});
}

std::optional<Match> match_random_of_values(const MatchContext&, const graph::Node& node) {
  if (node.inputs.empty() || !node.inputs[0] || node.outputs.empty() || !node.outputs[0])
    return std::nullopt;
  return Match{};
}

void draw_bernoulli(const Match& match, Rewriter& rw) {
  const graph::Node& node = *match.anchor;
  graph::Value* u = uniform_draws(rw, node, node.inputs[0]->type.shape());
  graph::Value* p =
      rw.op("Cast", {rw.value(node.inputs[0])}, {{"to", graph::Attribute::of_int(11)}});
  graph::Value* likely_zero = rw.op("LessOrEqual", {p, rw.fill(0.5, {}, kF64)}, {}, "p_le_half");
  graph::Value* above = rw.op("Greater", {u, rw.op("Sub", {rw.fill(1.0, {}, kF64), p})});
  graph::Value* below = rw.op("LessOrEqual", {u, p});
  graph::Value* one = rw.op("Where", {likely_zero, above, below});
  std::optional<int64_t> to = graph::onnx_code_from_data_type(node.outputs[0]->type.dtype);
  TESSEL_ICHECK(to, node.describe(), ": no ONNX code for ",
                node.outputs[0]->type.dtype.to_string());
  rw.add_node("Cast", {one}, {rw.output(0)}, {{"to", graph::Attribute::of_int(*to)}});
}

void draw_multinomial(const Match& match, Rewriter& rw) {
  const graph::Node& node = *match.anchor;
  graph::Value* u = uniform_draws(rw, node, node.outputs[0]->type.shape());
  std::map<std::string, graph::Attribute> attributes = node.attributes;
  attributes.erase("seed");
  rw.add_node("MultinomialOfDraws", {rw.value(node.inputs[0]), u}, {rw.output(0)},
              std::move(attributes), 1, "tessel");
}

}  // namespace

std::vector<RewriteRule> random_rules() {
  return {
      {"draw_dropout_mask", "Dropout", match_training_dropout, draw_dropout_mask},
      {"draw_bernoulli", "Bernoulli", match_random_of_values, draw_bernoulli},
      {"draw_multinomial", "Multinomial", match_random_of_values, draw_multinomial},
  };
}

}  // namespace tessel::passes

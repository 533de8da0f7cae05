// Data movement that composes: Transpose of a Transpose becomes one Transpose (nothing when
// the permutations cancel); a chain of Reshape, Flatten, Squeeze and Unsqueeze becomes one
// Reshape to the final (static) shape; a reshape or transpose that changes nothing goes.
#include <functional>

#include "passes/rules/rules.h"

namespace tessel::passes {

namespace {

const char* const kReshapes[] = {"Reshape", "Flatten", "Squeeze", "Unsqueeze"};

/// A Transpose's permutation (the reversal when the attribute is absent).
std::vector<int64_t> permutation(const graph::Node& transpose) {
  if (const graph::Attribute* perm = transpose.attribute("perm")) return perm->ints;
  std::vector<int64_t> reversed;
  for (int d = transpose.inputs[0]->type.rank(); d-- > 0;) reversed.push_back(d);
  return reversed;
}

bool is_identity(const std::vector<int64_t>& perm) {
  for (size_t d = 0; d < perm.size(); ++d)
    if (perm[d] != static_cast<int64_t>(d)) return false;
  return true;
}

std::optional<Match> match_transpose_pair(const MatchContext& ctx, const graph::Node& node) {
  const graph::Node* first = ctx.producer(node.inputs[0], "Transpose");
  if (!first) return std::nullopt;
  // out[j] = mid[p2[j]] = in[p1[p2[j]]].
  std::vector<int64_t> p1 = permutation(*first), p2 = permutation(node), merged;
  for (int64_t axis : p2) {
    if (axis < 0 || axis >= static_cast<int64_t>(p1.size())) return std::nullopt;
    merged.push_back(p1[static_cast<size_t>(axis)]);
  }
  Match match;
  match.interior = {first};
  match.values = {first->inputs[0]};
  match.params["perm"] = graph::Attribute::of_ints(merged);
  match.params["forward"] =
      graph::Attribute::of_int(is_identity(merged) && !ctx.is_graph_output(node.outputs[0]));
  return match;
}

/// Forwards the anchor's output to the chain's input when the match says so, else emits the
/// single node that replaces the chain.
void forward_or(const Match& match, Rewriter& rw, const std::function<void()>& emit) {
  if (match.params.at("forward").i)
    rw.forward(0, match.values[0]);
  else
    emit();
}

void merge_transposes(const Match& match, Rewriter& rw) {
  forward_or(match, rw, [&] {
    rw.add_node("Transpose", {rw.value(match.values[0])}, {rw.output(0)},
                {{"perm", match.params.at("perm")}});
  });
}

/// A reshape-like node whose output keeps its input's shape (and a Transpose keeping the
/// order), unless its output is a graph output.
std::optional<Match> match_no_op(const MatchContext& ctx, const graph::Node& node) {
  if (node.inputs.empty() || !node.inputs[0] || ctx.is_graph_output(node.outputs[0]))
    return std::nullopt;
  bool same = node.op_type == "Transpose" ? is_identity(permutation(node))
                                          : node.outputs[0]->type == node.inputs[0]->type;
  if (!same) return std::nullopt;
  return Match{};
}

void forward_input(const Match& match, Rewriter& rw) {
  rw.forward(0, match.anchor->inputs[0]);
}

std::optional<Match> match_reshape_chain(const MatchContext& ctx, const graph::Node& node) {
  const graph::Node* first = nullptr;
  for (const char* op : kReshapes)
    if (!first) first = ctx.producer(node.inputs[0], op);
  const graph::TensorType& out = node.outputs[0]->type;
  // A zero extent in a Reshape's shape would mean "copy the input's extent".
  if (!first || !out.has_static_shape() || out.num_elements() == 0) return std::nullopt;
  Match match;
  match.interior = {first};
  match.values = {first->inputs[0]};
  match.params["shape"] = graph::Attribute::of_ints(out.shape());
  match.params["forward"] = graph::Attribute::of_int(out == first->inputs[0]->type &&
                                                     !ctx.is_graph_output(node.outputs[0]));
  return match;
}

void merge_reshapes(const Match& match, Rewriter& rw) {
  forward_or(match, rw, [&] {
    graph::Value* shape = rw.ints(match.params.at("shape").ints);
    rw.add_node("Reshape", {rw.value(match.values[0]), shape}, {rw.output(0)});
  });
}

}  // namespace

std::vector<RewriteRule> layout_rules() {
  std::vector<RewriteRule> rules = {
      {"merge_transposes", "Transpose", match_transpose_pair, merge_transposes},
      {"remove_no_op_transpose", "Transpose", match_no_op, forward_input},
  };
  for (const char* op : kReshapes) {
    rules.push_back({std::string("merge_reshapes_") + op, op, match_reshape_chain, merge_reshapes});
    rules.push_back({std::string("remove_no_op_") + op, op, match_no_op, forward_input});
  }
  return rules;
}

}  // namespace tessel::passes

// Operators that return their input at inference: Identity, and Dropout when not training
// and its mask is unused. Their output is forwarded to their input (unless it is a graph
// output, whose name must stay).
#include "passes/rules/rules.h"

namespace tessel::passes {

namespace {

std::optional<Match> match_identity(const MatchContext& ctx, const graph::Node& node) {
  if (node.inputs.size() != 1 || !node.inputs[0] || node.outputs.size() != 1 ||
      ctx.is_graph_output(node.outputs[0]))
    return std::nullopt;
  return Match{};
}

std::optional<Match> match_dropout(const MatchContext& ctx, const graph::Node& node) {
  if (node.inputs.empty() || !node.inputs[0] || !node.outputs[0] ||
      ctx.is_graph_output(node.outputs[0]))
    return std::nullopt;
  for (size_t k = 1; k < node.outputs.size(); ++k)
    if (!ctx.unused(node.outputs[k])) return std::nullopt;
  if (node.inputs.size() > 2 && node.inputs[2]) {
    std::optional<double> training = ctx.scalar(node.inputs[2]);
    if (!training || *training != 0) return std::nullopt;
  }
  return Match{};
}

void forward_input(const Match& match, Rewriter& rw) {
  rw.forward(0, match.anchor->inputs[0]);
}

}  // namespace

std::vector<RewriteRule> passthrough_rules() {
  return {
      {"remove_identity", "Identity", match_identity, forward_input},
      {"remove_dropout", "Dropout", match_dropout, forward_input},
  };
}

}  // namespace tessel::passes

// Operators that return their input at inference: Identity, Dropout when not training
// and its mask is unused, and a Pad that pads nothing (exporters write one before average
// pools). Their output is forwarded to their input (unless it is a graph output, whose
// name must stay).
#include "passes/rules/rules.h"
#include "runtime/ndarray_element.h"

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

std::optional<Match> match_zero_pad(const MatchContext& ctx, const graph::Node& node) {
  if (node.inputs.size() < 2 || !node.inputs[0] || node.outputs.size() != 1 ||
      ctx.is_graph_output(node.outputs[0]))
    return std::nullopt;
  // Opset 11 on: the pads are input 1 (opset 2: the attribute, which the importer reads
  // the same way, is not handled here); a Pad over selected axes (input 3) pads nothing
  // either when its pads are zero.
  const graph::Value* pads = node.inputs[1];
  if (!pads || !pads->is_constant()) return std::nullopt;
  for (int64_t i = 0; i < pads->constant->size(); ++i)
    if (runtime::element_as_double(*pads->constant, i) != 0) return std::nullopt;
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
      {"remove_zero_pad", "Pad", match_zero_pad, forward_input},
  };
}

}  // namespace tessel::passes

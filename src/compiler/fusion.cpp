// fuse_operators: greedy forward grouping of single-consumer chains by pattern kind.
#include "compiler/fusion.h"

#include <algorithm>
#include <map>
#include <set>

#include "executor/node_kernel.h"
#include "ops/op_def.h"
#include "support/error.h"

namespace tessel::compiler {

using ops::PatternKind;

bool is_elementwise(PatternKind kind) {
  return kind == PatternKind::Elementwise || kind == PatternKind::Broadcast;
}

namespace {

bool is_injective(PatternKind kind) {
  return is_elementwise(kind) || kind == PatternKind::Injective;
}

size_t present_outputs(const graph::Node& node) {
  return static_cast<size_t>(
      std::count_if(node.outputs.begin(), node.outputs.end(), [](auto* v) { return v != nullptr; }));
}

/// Operator definition, or nullptr for nodes the registry does not know (they fail later,
/// at kernel compilation, with the registry's message).
const ops::OpDef* definition(const graph::Node& node) {
  try {
    return &executor::find_op(node);
  } catch (const CompileError&) {
    return nullptr;
  }
}

struct Grouping {
  std::vector<FusedGroup> groups;
  /// Groups nothing may join: opaque, multi-output, metadata or unknown operators, and
  /// operators with their own schedule that are not anchors.
  std::vector<bool> closed;
  std::map<const graph::Node*, size_t> group_of;
};

/// Whether `node` may join `group` through the value `via` (an output of the group's root).
bool can_join(const FusedGroup& group, const graph::Node& node, const ops::OpDef& def,
              const graph::Value& via) {
  PatternKind kind = def.pattern;
  const graph::TensorType& out = node.outputs[0]->type;
  if (!group.anchor) {
    if (is_injective(kind)) return !def.schedule;
    // A reduction takes an element-wise prologue (cheap to recompute in each of its stages).
    if (kind != PatternKind::Reduction) return false;
    for (const graph::Node* member : group.nodes)
      if (!is_elementwise(definition(*member)->pattern)) return false;
    return true;
  }
  // Epilogues of an anchor: element-wise, at the anchor's output shape, so each output
  // element reads the anchor's result at its own position.
  if (!is_elementwise(kind) || def.schedule) return false;
  if (definition(*group.anchor)->pattern != PatternKind::OutFusable) return false;
  return out.dims == via.type.dims && out.dims == group.anchor->outputs[0]->type.dims;
}

}  // namespace

std::string FusedGroup::label() const {
  std::string text;
  for (const graph::Node* node : nodes) text += (text.empty() ? "" : "+") + node->op_type;
  return text;
}

std::vector<FusedGroup> fuse_operators(const graph::Graph& graph, const FusionOptions& options) {
  // Consumers of each value (a graph output counts as one more use).
  std::map<const graph::Value*, std::set<const graph::Node*>> consumers;
  std::set<const graph::Value*> graph_outputs(graph.outputs().begin(), graph.outputs().end());
  for (const auto& node : graph.nodes())
    for (const graph::Value* in : node->inputs)
      if (in) consumers[in].insert(node.get());

  Grouping grouping;
  for (const auto& node_ptr : graph.nodes()) {
    const graph::Node& node = *node_ptr;
    const ops::OpDef* def = definition(node);
    bool single_output = node.outputs.size() == 1 && present_outputs(node) == 1;
    if (options.enabled && def && !def->fold && single_output) {
      for (const graph::Value* in : node.inputs) {
        if (!in || !in->producer || graph_outputs.count(in) || consumers[in].size() != 1) continue;
        auto found = grouping.group_of.find(in->producer);
        if (found == grouping.group_of.end()) continue;
        FusedGroup& group = grouping.groups[found->second];
        if (grouping.closed[found->second]) continue;
        if (&group.root() != in->producer || !can_join(group, node, *def, *in)) continue;
        group.nodes.push_back(&node);
        if (def->pattern == PatternKind::Reduction || def->pattern == PatternKind::OutFusable)
          group.anchor = &node;
        grouping.group_of[&node] = found->second;
        break;
      }
      if (grouping.group_of.count(&node)) continue;
    }
    FusedGroup group;
    group.nodes.push_back(&node);
    bool anchors = def && (def->pattern == PatternKind::Reduction ||
                           def->pattern == PatternKind::OutFusable);
    if (anchors) group.anchor = &node;
    bool closed = !options.enabled || !def || def->fold || !single_output ||
                  def->pattern == ops::PatternKind::Opaque || (def->schedule && !anchors);
    grouping.group_of[&node] = grouping.groups.size();
    grouping.groups.push_back(std::move(group));
    grouping.closed.push_back(closed);
  }
  // A group runs where its last node was.
  std::vector<FusedGroup> ordered = std::move(grouping.groups);
  std::map<const graph::Node*, size_t> position;
  for (size_t i = 0; i < graph.nodes().size(); ++i) position[graph.nodes()[i].get()] = i;
  std::stable_sort(ordered.begin(), ordered.end(), [&](const FusedGroup& a, const FusedGroup& b) {
    return position.at(&a.root()) < position.at(&b.root());
  });
  return ordered;
}

}  // namespace tessel::compiler

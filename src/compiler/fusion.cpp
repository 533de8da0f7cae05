// fuse_operators: greedy forward grouping by pattern kind, of chains and of element-wise
// DAGs whose shared values are read only inside the group.
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

/// An element-wise operator without a schedule of its own: what may join a group later
/// through a value that has several readers.
bool may_join_later(const graph::Node& node) {
  const ops::OpDef* def = definition(node);
  return def && !def->fold && !def->schedule && is_elementwise(def->pattern) &&
         node.outputs.size() == 1 && present_outputs(node) == 1;
}

struct Grouping {
  std::vector<FusedGroup> groups;
  /// Groups nothing may join: opaque, multi-output, metadata or unknown operators, and
  /// operators with their own schedule that are not anchors.
  std::vector<bool> closed;
  std::map<const graph::Node*, size_t> group_of;
  /// Readers of each value; a graph output is read from outside.
  std::map<const graph::Value*, std::set<const graph::Node*>> consumers;
  std::set<const graph::Value*> graph_outputs;
  std::map<const graph::Node*, size_t> position;  ///< of each node in the graph

  /// Whether `members` (in graph order) can be one kernel, the last one's outputs its
  /// results: every value the others compute is read only by members, or, when
  /// `pending_may_join`, by element-wise nodes after the last member (not grouped yet,
  /// they may still join).
  bool is_closed(const std::vector<const graph::Node*>& members, bool pending_may_join) const {
    std::set<const graph::Node*> inside(members.begin(), members.end());
    for (size_t m = 0; m + 1 < members.size(); ++m)
      for (const graph::Value* out : members[m]->outputs) {
        if (!out) continue;
        if (graph_outputs.count(out)) return false;
        for (const graph::Node* reader : consumers.at(out))
          if (!inside.count(reader) &&
              !(pending_may_join && position.at(reader) > position.at(members.back()) &&
                may_join_later(*reader)))
            return false;
      }
    return true;
  }
};

/// Whether `node`'s operator may join `group` through the value `via` (computed by a member).
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

bool FusedGroup::data_dependent() const {
  return nodes.size() == 1 && executor::data_dependent_step(*nodes[0]).has_value();
}

std::string FusedGroup::label() const {
  std::string text;
  for (const graph::Node* node : nodes) text += (text.empty() ? "" : "+") + node->op_type;
  return text;
}

std::vector<FusedGroup> fuse_operators(const graph::Graph& graph, const FusionOptions& options) {
  Grouping grouping;
  grouping.graph_outputs.insert(graph.outputs().begin(), graph.outputs().end());
  for (size_t i = 0; i < graph.nodes().size(); ++i) {
    const graph::Node* node = graph.nodes()[i].get();
    grouping.position[node] = i;
    for (const graph::Value* out : node->outputs)
      if (out) grouping.consumers[out];
    for (const graph::Value* in : node->inputs)
      if (in) grouping.consumers[in].insert(node);
  }

  for (const auto& node_ptr : graph.nodes()) {
    const graph::Node& node = *node_ptr;
    const ops::OpDef* def = definition(node);
    bool single_output = node.outputs.size() == 1 && present_outputs(node) == 1;
    // A node the runtime runs as a step of its own is a group alone.
    bool runs_alone = def && def->data_dependent && executor::data_dependent_step(node);
    if (options.enabled && def && !def->fold && single_output && !runs_alone) {
      for (const graph::Value* in : node.inputs) {
        if (!in || !in->producer) continue;
        auto found = grouping.group_of.find(in->producer);
        if (found == grouping.group_of.end()) continue;
        FusedGroup& group = grouping.groups[found->second];
        if (grouping.closed[found->second] || group.nodes.size() >= options.max_group_nodes ||
            !can_join(group, node, *def, *in))
          continue;
        // The values the group computed so far must not be needed outside it once `node`
        // computes its result: a value with several readers joins only where they are all
        // element-wise and may join too (x * sigmoid(x), hard-swish, GELU's forms).
        std::vector<const graph::Node*> members = group.nodes;
        members.push_back(&node);
        if (!grouping.is_closed(members, true)) continue;
        group.nodes = std::move(members);
        grouping.group_of[&node] = found->second;
        if (def->pattern == PatternKind::Reduction || def->pattern == PatternKind::OutFusable)
          group.anchor = &node;
        break;
      }
      if (grouping.group_of.count(&node)) continue;
    }
    FusedGroup group;
    group.nodes.push_back(&node);
    bool anchors = def && (def->pattern == PatternKind::Reduction ||
                           def->pattern == PatternKind::OutFusable);
    if (anchors) group.anchor = &node;
    bool closed = !options.enabled || !def || def->fold || !single_output || runs_alone ||
                  def->pattern == ops::PatternKind::Opaque || (def->schedule && !anchors);
    grouping.group_of[&node] = grouping.groups.size();
    grouping.groups.push_back(std::move(group));
    grouping.closed.push_back(closed);
  }
  // A group whose expected readers did not all join ends before the first value that
  // leaves it; its other members run alone.
  std::vector<FusedGroup> ordered;
  for (FusedGroup& group : grouping.groups) {
    size_t length = group.nodes.size();
    while (length > 1 &&
           !grouping.is_closed({group.nodes.begin(), group.nodes.begin() + length}, false))
      --length;
    for (size_t m = length; m < group.nodes.size(); ++m) {
      FusedGroup alone;
      alone.nodes.push_back(group.nodes[m]);
      if (group.nodes[m] == group.anchor) alone.anchor = group.anchor;
      ordered.push_back(std::move(alone));
    }
    group.nodes.resize(length);
    if (std::find(group.nodes.begin(), group.nodes.end(), group.anchor) == group.nodes.end())
      group.anchor = nullptr;
    ordered.push_back(std::move(group));
  }
  // A group runs where its last node was.
  std::stable_sort(ordered.begin(), ordered.end(), [&](const FusedGroup& a, const FusedGroup& b) {
    return grouping.position.at(&a.root()) < grouping.position.at(&b.root());
  });
  return ordered;
}

}  // namespace tessel::compiler

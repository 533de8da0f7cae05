// eliminate_dead_code: liveness backwards from the graph outputs, then a copy of the live
// nodes (the builder copies only the constants they read).
#include "passes/eliminate_dead_code.h"

#include <set>

#include "passes/graph_builder.h"

namespace tessel::passes {

graph::Graph eliminate_dead_code(const graph::Graph& graph) {
  std::set<const graph::Value*> live(graph.outputs().begin(), graph.outputs().end());
  std::set<const graph::Node*> live_nodes;
  const auto& nodes = graph.nodes();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    const graph::Node& node = **it;
    bool needed = false;
    for (const graph::Value* out : node.outputs) needed |= out && live.count(out);
    if (!needed) continue;
    live_nodes.insert(&node);
    for (const graph::Value* in : node.inputs)
      if (in) live.insert(in);
  }
  GraphBuilder builder(graph);
  for (const auto& node : nodes)
    if (live_nodes.count(node.get())) builder.copy_node(*node);
  return builder.finish();
}

}  // namespace tessel::passes

// verify: the graph IR's invariants, checked after import and between passes.
#include <set>

#include "graph/graph.h"
#include "support/error.h"

namespace tessel::graph {

void verify(const Graph& graph) {
  std::set<const Value*> defined;
  for (const Value* in : graph.inputs()) {
    if (in->producer)
      TESSEL_USER_ERROR("graph input '", in->name, "' is also produced by ",
                        in->producer->describe());
    defined.insert(in);
  }
  for (const auto& value : graph.values())
    if (value->is_constant()) defined.insert(value.get());
  for (const auto& node : graph.nodes()) {
    for (size_t i = 0; i < node->inputs.size(); ++i) {
      const Value* in = node->inputs[i];
      if (in && !defined.count(in))
        TESSEL_USER_ERROR(node->describe(), ": input ", i, " '", in->name,
                          "' is not a graph input, an initializer or the output of an earlier "
                          "node");
    }
    for (const Value* out : node->outputs) {
      if (!out) continue;
      if (out->producer != node.get())
        TESSEL_USER_ERROR(node->describe(), ": output '", out->name,
                          "' is recorded with another producer");
      if (!defined.insert(out).second)
        TESSEL_USER_ERROR(node->describe(), ": output '", out->name, "' is defined twice");
    }
  }
  for (const Value* out : graph.outputs())
    if (!defined.count(out))
      TESSEL_USER_ERROR("graph output '", out->name, "' is never computed");
}

}  // namespace tessel::graph

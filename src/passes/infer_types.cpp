// infer_types: each node's output types from executor::infer_node, in topological order.
#include "passes/infer_types.h"

#include "executor/node_kernel.h"
#include "passes/body_types.h"
#include "passes/graph_builder.h"
#include "support/error.h"

namespace tessel::passes {

void require_static_inputs(const graph::Graph& graph, const std::string& pass) {
  for (const graph::Value* in : graph.inputs())
    if (!in->type.has_static_shape())
      TESSEL_USER_ERROR(pass, ": graph input '", in->name, "' has the non-static type ",
                        in->type.to_string(), "; give it a concrete shape (specialize_inputs)");
}

std::vector<graph::TensorType> types_of(const std::vector<const graph::Value*>& values) {
  std::vector<graph::TensorType> types;
  for (const graph::Value* v : values) types.push_back(v ? v->type : graph::TensorType{});
  return types;
}

std::vector<const runtime::NDArray*> constants_of(const std::vector<const graph::Value*>& values) {
  std::vector<const runtime::NDArray*> data;
  for (const graph::Value* v : values) data.push_back(v ? v->constant.get() : nullptr);
  return data;
}

graph::Graph infer_types(const graph::Graph& graph) {
  require_static_inputs(graph, "infer_types");
  GraphBuilder builder(graph);
  for (const auto& source : graph.nodes()) {
    graph::Node* node = builder.copy_node(*source);
    std::vector<const graph::Value*> inputs(node->inputs.begin(), node->inputs.end());
    std::vector<graph::TensorType> inferred =
        executor::infer_node(*node, types_of(inputs), constants_of(inputs), &body_typer());
    for (size_t k = 0; k < node->outputs.size() && k < inferred.size(); ++k)
      if (node->outputs[k]) node->outputs[k]->type = inferred[k];
  }
  return builder.finish();
}

}  // namespace tessel::passes

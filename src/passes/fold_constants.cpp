// fold_constants: evaluate all-constant nodes with our kernels, metadata ops from types.
#include "passes/fold_constants.h"

#include "executor/node_kernel.h"
#include "passes/graph_builder.h"
#include "passes/infer_types.h"

namespace tessel::passes {

namespace {

/// Whether `node` can be evaluated now: a metadata operator, or every input a constant, and
/// its outputs not much larger than its inputs.
bool foldable(const graph::Node& node, const ops::OpDef& def,
              const std::vector<const graph::Value*>& inputs,
              const std::vector<graph::TensorType>& output_types) {
  if (def.fold) return true;
  int64_t input_elements = 0, output_elements = 0;
  for (const graph::Value* in : inputs) {
    if (!in) continue;
    if (!in->is_constant()) return false;
    input_elements += in->type.num_elements();
  }
  for (size_t k = 0; k < node.outputs.size() && k < output_types.size(); ++k)
    if (node.outputs[k]) output_elements += output_types[k].num_elements();
  return output_elements <= kMinLargeFold || output_elements <= kMaxFoldGrowth * input_elements;
}

}  // namespace

graph::Graph fold_constants(const graph::Graph& graph) {
  require_static_inputs(graph, "fold_constants");
  GraphBuilder builder(graph);
  for (const auto& source : graph.nodes()) {
    const graph::Node& node = *source;
    std::vector<const graph::Value*> inputs = builder.lookup(node.inputs);
    std::vector<graph::TensorType> types = types_of(inputs);
    std::vector<const runtime::NDArray*> values = constants_of(inputs);
    std::vector<graph::TensorType> output_types = executor::infer_node(node, types, values);
    if (foldable(node, executor::find_op(node), inputs, output_types)) {
      executor::NodeKernel kernel = executor::compile_node(node, types, values);
      std::vector<std::shared_ptr<const runtime::NDArray>> results = kernel.folded;
      if (results.empty())
        for (runtime::NDArray& array : executor::run_compiled(node, kernel, values))
          results.push_back(std::make_shared<const runtime::NDArray>(std::move(array)));
      for (size_t k = 0; k < node.outputs.size() && k < results.size(); ++k)
        if (node.outputs[k]) builder.define_constant(node.outputs[k], results[k]);
      continue;
    }
    graph::Node* copy = builder.copy_node(node);
    for (size_t k = 0; k < copy->outputs.size() && k < output_types.size(); ++k)
      if (copy->outputs[k]) copy->outputs[k]->type = output_types[k];
  }
  return builder.finish();
}

}  // namespace tessel::passes

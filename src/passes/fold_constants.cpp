// fold_constants: evaluate all-constant nodes with our kernels, metadata ops from types; an
// If on a constant condition becomes its taken branch; sequences and optionals become their
// elements (passes/sequences.h).
#include "passes/fold_constants.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "executor/node_kernel.h"
#include "ops/shape/shape_ops.h"
#include "passes/body_types.h"
#include "passes/graph_builder.h"
#include "passes/infer_types.h"
#include "passes/inline_branch.h"
#include "passes/run_time_extents.h"
#include "passes/sequences.h"

namespace tessel::passes {

namespace {

/// Whether `node` can be evaluated now: a metadata operator, or every input a constant, and
/// its outputs not much larger than its inputs.
bool foldable(const graph::Node& node, const ops::OpDef& def,
              const std::vector<const graph::Value*>& inputs,
              const std::vector<graph::TensorType>& output_types) {
  if (def.fold) return true;
  if (!def.compute && !def.data_dependent) return false;  // rewritten later (recurrent cells)
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

/// Kernels compiled for folding, shared by nodes of the same operator, attributes and input
/// types (a model transposes many weights of a few shapes). A kernel may have baked in the
/// values of the inputs it does not take as arguments, so an entry also keeps those values
/// and serves only nodes whose values there are equal.
class FoldKernels {
 public:
  const executor::NodeKernel& get(const graph::Node& node,
                                  const std::vector<const graph::Value*>& inputs,
                                  const std::vector<graph::TensorType>& types,
                                  const std::vector<const runtime::NDArray*>& values) {
    std::vector<Entry>& entries = cache_[signature(node, inputs, types)];
    for (const Entry& entry : entries)
      if (same_baked_values(entry, values)) return entry.kernel;
    Entry entry{executor::compile_node(node, types, values), {}};
    entry.baked.resize(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      bool argument =
          std::find(entry.kernel.kernel_inputs.begin(), entry.kernel.kernel_inputs.end(), i) !=
          entry.kernel.kernel_inputs.end();
      if (values[i] && !argument)
        entry.baked[i] = std::make_shared<const runtime::NDArray>(values[i]->copy());
    }
    entries.push_back(std::move(entry));
    return entries.back().kernel;
  }

 private:
  struct Entry {
    executor::NodeKernel kernel;
    std::vector<std::shared_ptr<const runtime::NDArray>> baked;
  };

  /// The operator, attributes and input types, and which inputs are absent (Clip without
  /// its max): a kernel compiled for an input present cannot serve a node without it.
  static std::string signature(const graph::Node& node,
                               const std::vector<const graph::Value*>& inputs,
                               const std::vector<graph::TensorType>& types) {
    std::string text = executor::node_signature(node);
    for (size_t i = 0; i < types.size(); ++i)
      text += (i < inputs.size() && inputs[i] ? types[i].to_string() : "absent") + ",";
    return text;
  }

  static bool same_baked_values(const Entry& entry,
                                const std::vector<const runtime::NDArray*>& values) {
    for (size_t i = 0; i < entry.baked.size() && i < values.size(); ++i) {
      if (!entry.baked[i]) continue;
      if (!values[i] || values[i]->nbytes() != entry.baked[i]->nbytes() ||
          std::memcmp(values[i]->data(), entry.baked[i]->data(), values[i]->nbytes()) != 0)
        return false;
    }
    return true;
  }

  std::map<std::string, std::vector<Entry>> cache_;
};

/// Whether a Shape or Size node reads an extent only the run knows: such a node stays
/// (mask_run_time_padding.h computes it from the run's extent) rather than fold the largest
/// extent.
bool reads_run_time_extent(const graph::Node& node, const ops::OpContext& ctx,
                           const RunTimeExtent& input) {
  if (input.axis < 0) return false;
  if (node.op_type == "Size") return true;
  if (node.op_type != "Shape") return false;
  auto [start, end] = ops::shape::shape_range(ctx);
  return start <= input.axis && input.axis < end;
}

}  // namespace

graph::Graph fold_constants(const graph::Graph& graph) {
  require_static_inputs(graph, "fold_constants");
  GraphBuilder builder(graph);
  FoldKernels kernels;
  // The values of the new graph whose extent the run finds (data-dependent steps' outputs
  // and what kernels compute from them).
  RunTimeExtents run_time;
  // One node (of the graph, or of a body a loop unrolling copies into it).
  NodeFolder fold_node = [&](const graph::Node& node) {
    std::vector<const graph::Value*> inputs = builder.lookup(node.inputs);
    if (resolve_structured_node(builder, node, inputs, fold_node)) return;
    if (inline_constant_branch(builder, node, inputs)) return;
    std::vector<graph::TensorType> types = types_of(inputs);
    std::vector<const runtime::NDArray*> values = constants_of(inputs);
    std::vector<graph::TensorType> output_types =
        executor::infer_node(node, types, values, &body_typer());
    std::vector<RunTimeExtent> extents = extents_of(run_time, inputs);
    const ops::OpDef& def = executor::find_op(node);
    bool run_time_shape =
        !extents.empty() && extents[0].axis >= 0 &&
        reads_run_time_extent(node, ops::OpContext(node, def, types, values), extents[0]);
    if (!run_time_shape && foldable(node, def, inputs, output_types)) {
      const executor::NodeKernel& kernel = kernels.get(node, inputs, types, values);
      std::vector<std::shared_ptr<const runtime::NDArray>> results = kernel.folded;
      if (results.empty())
        for (runtime::NDArray& array : executor::run_compiled(node, kernel, values))
          results.push_back(std::make_shared<const runtime::NDArray>(std::move(array)));
      for (size_t k = 0; k < node.outputs.size() && k < results.size(); ++k)
        if (node.outputs[k]) builder.define_constant(node.outputs[k], results[k]);
      return;
    }
    graph::Node* copy = builder.copy_node(node);
    for (size_t k = 0; k < copy->outputs.size() && k < output_types.size(); ++k)
      if (copy->outputs[k]) copy->outputs[k]->type = output_types[k];
    if (!any_run_time(extents) && !def.data_dependent) return;
    // A node that cannot carry the extent is refused when the model is planned.
    record_outputs(run_time, *copy,
                   flow_run_time_extents(*copy, types, values, output_types, extents), extents);
  };
  for (const auto& source : graph.nodes()) fold_node(*source);
  return builder.finish();
}

}  // namespace tessel::passes

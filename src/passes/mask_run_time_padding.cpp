// mask_run_time_padding: tessel.MaskPadding before reductions over an axis whose extent the
// run finds (mask_run_time_padding.h).
#include "passes/mask_run_time_padding.h"

#include <algorithm>
#include <map>

#include "executor/node_kernel.h"
#include "ops/op_context.h"
#include "ops/shape/shape_ops.h"
#include "passes/graph_builder.h"
#include "passes/infer_types.h"
#include "passes/run_time_extents.h"

namespace tessel::passes {
namespace {

graph::Node make_node(const std::string& name, const std::string& op, const std::string& domain,
                      int opset, std::vector<graph::Value*> inputs,
                      std::map<std::string, graph::Attribute> attributes = {}) {
  graph::Node node;
  node.name = name;
  node.op_type = op;
  node.domain = domain;
  node.opset = opset;
  node.inputs = std::move(inputs);
  node.attributes = std::move(attributes);
  return node;
}

/// Rewrites the graph node by node, following the run-time extents of the new graph.
class PaddingMasker {
 public:
  explicit PaddingMasker(const graph::Graph& graph) : builder_(graph) {}

  graph::Graph run() {
    for (const auto& node : builder_.source().nodes()) visit(*node);
    return builder_.finish();
  }

 private:
  void visit(const graph::Node& node) {
    std::vector<graph::Value*> inputs = builder_.values(node.inputs);
    std::vector<RunTimeExtent> extents = extents_of(run_time_, inputs);
    bool any = any_run_time(extents);
    if (any && node.domain.empty() && (node.op_type == "Shape" || node.op_type == "Size") &&
        extents[0].axis >= 0) {
      measure(node, inputs, extents[0]);
      return;
    }
    if (any && node.domain.empty() && !padding_fill(node.op_type).empty() && extents[0].axis >= 0) {
      graph::Node probe = node;
      probe.inputs = inputs;
      if (!flow_of(probe, extents).problem.empty() && mask(node, inputs, extents[0])) return;
    }
    graph::Node* copy = builder_.copy_node(node);
    if (any || executor::find_op(*copy).data_dependent) follow(*copy);
  }

  /// Masks input 0 of reduction `node` along the axis of `extent`; false when the
  /// reduction cannot be made right so (a mean of another type than float32).
  bool mask(const graph::Node& node, std::vector<graph::Value*> inputs,
            const RunTimeExtent& extent) {
    bool mean = node.op_type == "ReduceMean";
    const graph::Value* out = node.outputs[0];
    int64_t largest_extent = node.inputs[0]->type.dims[static_cast<size_t>(extent.axis)].value;
    if (mean && (out->type.dtype != ir::DataType::Float(32) || node.opset < 7)) return false;
    graph::Value* masked =
        add(make_node(node.name + "_mask", "MaskPadding", "tessel", 1,
                      {inputs[0], extent_value(extent.source)},
                      {{"axis", graph::Attribute::of_int(extent.axis)},
                       {"fill", graph::Attribute::of_string(padding_fill(node.op_type))}}),
            inputs[0]->type);
    inputs[0] = masked;
    graph::Node reduction = node;
    reduction.inputs = std::move(inputs);
    if (!mean) {
      for (size_t k = 0; k < node.outputs.size(); ++k)
        reduction.outputs[k] = node.outputs[k] ? builder_.define(node.outputs[k]) : nullptr;
      follow(*builder_.add_node(std::move(reduction)));
      return true;
    }
    // The mean over the largest extent, times largest / extent.
    graph::Value* over_largest = add(std::move(reduction), out->type);
    graph::Value* extent_float =
        add(make_node(node.name + "_extent", "Cast", "", node.opset, {extent_value(extent.source)},
                      {{"to", graph::Attribute::of_int(1)}}),
            graph::TensorType::of(ir::DataType::Float(32), {}));
    auto largest =
        std::make_shared<runtime::NDArray>(std::vector<int64_t>{}, runtime::DType::Float(32));
    *largest->data_as<float>() = static_cast<float>(largest_extent);
    graph::Value* scale =
        add(make_node(node.name + "_scale", "Div", "", node.opset,
                      {builder_.add_constant(node.name + "_largest", largest), extent_float}),
            extent_float->type);
    graph::Node product =
        make_node(node.name + "_rescaled", "Mul", "", node.opset, {over_largest, scale});
    product.outputs = {builder_.define(out)};
    builder_.add_node(std::move(product));
    return true;
  }

  /// Shape or Size of a value whose extent the run finds, from the run's extent: Shape
  /// selects it where the axis is and the largest extents elsewhere, Size multiplies it by
  /// the other extents.
  void measure(const graph::Node& node, const std::vector<graph::Value*>& inputs,
               const RunTimeExtent& extent) {
    std::vector<int64_t> dims = inputs[0]->type.shape();
    graph::Value* run_extent = extent_value(extent.source);
    int opset = std::max(node.opset, 13);
    auto int64s = [](const std::vector<int64_t>& values, std::vector<int64_t> shape) {
      auto array = std::make_shared<runtime::NDArray>(std::move(shape), runtime::DType::Int(64));
      std::copy(values.begin(), values.end(), array->data_as<int64_t>());
      return array;
    };
    graph::Node result;
    if (node.op_type == "Size") {
      int64_t others = 1;
      for (size_t k = 0; k < dims.size(); ++k)
        if (static_cast<int>(k) != extent.axis) others *= dims[k];
      result = make_node(
          node.name + "_size", "Mul", "", opset,
          {run_extent, builder_.add_constant(node.name + "_others", int64s({others}, {}))});
    } else {
      std::vector<const graph::Value*> read(inputs.begin(), inputs.end());
      ops::OpContext ctx(node, executor::find_op(node), types_of(read), constants_of(read));
      auto [start, end] = ops::shape::shape_range(ctx);
      std::vector<int64_t> largest(dims.begin() + start, dims.begin() + end);
      auto at_axis = std::make_shared<runtime::NDArray>(std::vector<int64_t>{end - start},
                                                        runtime::DType::Bool());
      for (int64_t k = start; k < end; ++k)
        at_axis->data_as<uint8_t>()[k - start] = k == extent.axis;
      result = make_node(
          node.name + "_shape", "Where", "", opset,
          {builder_.add_constant(node.name + "_at_axis", at_axis), run_extent,
           builder_.add_constant(node.name + "_largest", int64s(largest, {end - start}))});
    }
    result.outputs = {builder_.define(node.outputs[0])};
    builder_.add_node(std::move(result));
  }

  /// Appends `node` with one new output of `type`; returns it.
  graph::Value* add(graph::Node node, const graph::TensorType& type) {
    node.outputs = {builder_.add_value(node.name, type)};
    return builder_.add_node(std::move(node))->outputs[0];
  }

  /// The run's extent of `source` (a data-dependent step's output), made once.
  graph::Value* extent_value(const graph::Value* source) {
    graph::Value*& value = extent_values_[source];
    if (!value) {
      // `source` is a value of the graph being built.
      auto* input = const_cast<graph::Value*>(source);
      value = add(make_node(source->name + "_extent", "RunTimeExtent", "tessel", 1, {input},
                            {{"axis", graph::Attribute::of_int(run_time_.at(source).axis)}}),
                  graph::TensorType::of(ir::DataType::Int(64), {}));
    }
    return value;
  }

  ExtentFlow flow_of(const graph::Node& node, const std::vector<RunTimeExtent>& extents) const {
    std::vector<const graph::Value*> inputs(node.inputs.begin(), node.inputs.end());
    std::vector<graph::TensorType> output_types;
    for (const graph::Value* out : node.outputs)
      output_types.push_back(out ? out->type : graph::TensorType{});
    return flow_run_time_extents(node, types_of(inputs), constants_of(inputs), output_types,
                                 extents);
  }

  /// Records the run-time extents of `node`'s outputs (a node of the new graph).
  void follow(const graph::Node& node) {
    std::vector<RunTimeExtent> extents = extents_of(run_time_, node.inputs);
    record_outputs(run_time_, node, flow_of(node, extents), extents);
  }

  GraphBuilder builder_;
  RunTimeExtents run_time_;
  std::map<const graph::Value*, graph::Value*> extent_values_;
};

}  // namespace

graph::Graph mask_run_time_padding(const graph::Graph& graph) {
  return PaddingMasker(graph).run();
}

}  // namespace tessel::passes

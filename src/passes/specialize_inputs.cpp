// specialize_inputs: checks each concrete input type against the declared one, binds the
// symbols, and defines the inputs anew (typed, or constant) before copying the nodes.
#include "passes/specialize_inputs.h"

#include <map>

#include "passes/graph_builder.h"
#include "support/error.h"

namespace tessel::passes {

namespace {

std::string describe(const graph::Value& input, size_t index) {
  return "graph input " + std::to_string(index) + " '" + input.name + "'";
}

/// Fails unless `given` is a concrete instance of `input`'s declared type. A declared type
/// without dimensions leaves the rank open (ONNX inputs without a shape).
void check_instance(const graph::Value& input, size_t index, const graph::TensorType& given,
                    std::map<std::string, int64_t>& symbols) {
  const graph::TensorType& declared = input.type;
  std::string what = describe(input, index) + " (declared " + declared.to_string() + ")";
  if (!given.has_static_shape())
    TESSEL_USER_ERROR(what, ": the given type ", given.to_string(), " is not static");
  if (given.dtype != declared.dtype)
    TESSEL_USER_ERROR(what, ": expected element type ", declared.dtype.to_string(), ", given ",
                      given.to_string());
  if (declared.dims.empty()) return;
  if (given.rank() != declared.rank())
    TESSEL_USER_ERROR(what, ": expected rank ", declared.rank(), ", given ", given.to_string());
  for (int d = 0; d < given.rank(); ++d) {
    const graph::Dim& dim = declared.dims[d];
    int64_t extent = given.dims[d].value;
    if (dim.is_static() && dim.value != extent)
      TESSEL_USER_ERROR(what, ": dimension ", d, " must be ", dim.value, ", given ",
                        given.to_string());
    if (dim.symbol.empty()) continue;
    auto [it, inserted] = symbols.emplace(dim.symbol, extent);
    if (!inserted && it->second != extent)
      TESSEL_USER_ERROR(what, ": dimension ", d, " '", dim.symbol, "' is given as ", extent,
                        " but is ", it->second, " in an earlier input");
  }
}

}  // namespace

graph::Graph specialize_inputs(const graph::Graph& graph,
                               const std::vector<graph::TensorType>& input_types,
                               const std::vector<const runtime::NDArray*>& input_values,
                               bool declared_types) {
  const auto& inputs = graph.inputs();
  if (input_types.size() != inputs.size() || input_values.size() > inputs.size())
    TESSEL_USER_ERROR("graph '", graph.name, "' has ", inputs.size(), " inputs; given ",
                      input_types.size(), " types and ", input_values.size(), " values");
  GraphBuilder builder(graph);
  std::map<std::string, int64_t> symbols;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i]->kind != graph::ValueKind::Tensor)
      TESSEL_USER_ERROR(describe(*inputs[i], i), " is a ", graph::value_kind_name(inputs[i]->kind),
                        ": a compilation takes a sequence or optional input as its elements, "
                        "whose number and types it is compiled for "
                        "(passes::flatten_structured_inputs)");
    if (declared_types) check_instance(*inputs[i], i, input_types[i], symbols);
    const runtime::NDArray* value = i < input_values.size() ? input_values[i] : nullptr;
    if (!value) {
      builder.define(inputs[i])->type = input_types[i];
      continue;
    }
    auto value_type = graph::TensorType::of(graph::to_data_type(value->dtype()), value->shape());
    if (value_type != input_types[i])
      TESSEL_USER_ERROR(describe(*inputs[i], i), ": the value given has type ",
                        value_type.to_string(), ", not ", input_types[i].to_string());
    builder.define_constant(inputs[i], std::make_shared<const runtime::NDArray>(value->copy()));
  }
  for (const auto& node : graph.nodes()) builder.copy_node(*node);
  return builder.finish();
}

}  // namespace tessel::passes

// Input shapes -> the model's input types; importing a model with structured inputs.
#include "api/input_shapes.h"

#include <algorithm>

#include "frontend/onnx_importer.h"
#include "passes/sequences.h"
#include "support/error.h"

namespace tessel::api {

std::vector<graph::TensorType> input_types(const graph::Graph& graph, const InputShapes& shapes) {
  std::vector<graph::TensorType> types;
  for (const auto& [name, shape] : shapes.tensors) {
    bool known = false;
    for (const graph::Value* in : graph.inputs()) known |= in->name == name;
    if (!known) TESSEL_USER_ERROR("input shapes: the model has no input named '", name, "'");
  }
  for (const graph::Value* in : graph.inputs()) {
    graph::TensorType type = in->type;
    bool given = false;
    for (const auto& [name, shape] : shapes.tensors) {
      if (name != in->name) continue;
      if (!type.dims.empty() && type.dims.size() != shape.size())
        TESSEL_USER_ERROR("input shapes: input '", name, "' has rank ", type.dims.size(), " (",
                          type.to_string(), "), got ", shape.size(), " dimensions");
      type.dims = shape;
      given = true;
    }
    // Symbolic dimensions the model declares, unless given, compile for 1.
    for (graph::Dim& dim : type.dims)
      if (!given && !dim.is_static()) dim = graph::Dim::of(1);
    types.push_back(type);
  }
  return types;
}

graph::Graph import_model(const std::string& path, const InputShapes& shapes) {
  graph::Graph graph = frontend::import_onnx_file(path);
  bool structured = false;
  for (const graph::Value* in : graph.inputs()) structured |= in->kind != graph::ValueKind::Tensor;
  for (const auto& [name, elements] : shapes.elements) {
    const graph::Value* input = nullptr;
    for (const graph::Value* in : graph.inputs())
      if (in->name == name) input = in;
    if (!input) TESSEL_USER_ERROR("input shapes: the model has no input named '", name, "'");
    if (input->kind == graph::ValueKind::Tensor)
      TESSEL_USER_ERROR("input shapes: input '", name, "' is a tensor: give it one shape");
  }
  if (!structured) return graph;
  std::vector<passes::InputStructure> structures;
  for (const graph::Value* in : graph.inputs()) {
    passes::InputStructure structure;
    if (in->kind != graph::ValueKind::Tensor) {
      auto given = std::find_if(shapes.elements.begin(), shapes.elements.end(),
                                [&](const auto& e) { return e.first == in->name; });
      bool sequence =
          in->kind == graph::ValueKind::Sequence || in->kind == graph::ValueKind::OptionalSequence;
      if (given == shapes.elements.end())
        TESSEL_USER_ERROR("input '", in->name, "' is ", sequence ? "a " : "an ",
                          graph::value_kind_name(in->kind), ": give ",
                          sequence ? "its elements' shapes" : "its value's shape",
                          " with --input-shape ", in->name, sequence ? "=[2x3,5]" : "=[2x3]",
                          in->kind == graph::ValueKind::Sequence ? "" : " (or =none when empty)");
      structure.present = given->second.present;
      for (const std::vector<graph::Dim>& dims : given->second.shapes)
        structure.elements.push_back(graph::TensorType{in->type.dtype, dims});
    }
    structures.push_back(std::move(structure));
  }
  return passes::flatten_structured_inputs(graph, structures);
}

}  // namespace tessel::api

// The input shapes a user fixes when compiling a model, and the model's input types they
// give: what the command line's --input-shape and the Python package's shape arguments
// both fill in.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace tessel::api {

struct InputShapes {
  /// Shapes of tensor inputs by name; a dimension given as a name stays symbolic (the model
  /// then runs any batch size).
  std::vector<std::pair<std::string, std::vector<graph::Dim>>> tensors;
  /// The elements of sequence and optional inputs: their shapes (a sequence's, [] when
  /// empty), or not present (an empty optional).
  struct Elements {
    bool present = true;
    std::vector<std::vector<graph::Dim>> shapes;
  };
  std::vector<std::pair<std::string, Elements>> elements;
};

/// The types of the graph's inputs: the declared ones, with the shapes `shapes` gives (their
/// symbols kept) and every other symbolic dimension set to 1. CompileError naming the input
/// for an unknown name or a rank that differs from the declared one.
std::vector<graph::TensorType> input_types(const graph::Graph& graph, const InputShapes& shapes);

/// The ONNX file at `path` imported; its sequence and optional inputs given as their
/// elements (passes::flatten_structured_inputs), whose shapes `shapes` must give.
/// CompileError naming the input when they are not given or do not fit its kind.
graph::Graph import_model(const std::string& path, const InputShapes& shapes);

}  // namespace tessel::api

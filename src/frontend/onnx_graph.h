// ModelProto -> graph::Graph: opsets, initializers, inputs, nodes and outputs of the main
// graph of an ONNX model.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "graph/graph.h"

namespace tessel::frontend {

/// The graph of `model` (which has a graph; see import_onnx_bytes for the whole contract).
/// Initializers become constants; graph inputs that are initializers (listed as inputs by
/// IR < 4) stay constants; nodes are imported in file order, so a node input that no earlier
/// node, graph input or initializer defines is an error. Node outputs get an empty
/// TensorType, except graph outputs whose type and shape the model declares (in the graph's
/// outputs or value_info). External tensor data is resolved against `external_data_dir`.
/// Throws CompileError (without a file name: the caller adds it).
graph::Graph graph_from_onnx(const onnx::ModelProto& model, const std::string& external_data_dir);

}  // namespace tessel::frontend

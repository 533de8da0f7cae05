// infer_types: gives every value of a graph its type, from the operator registry's type
// inference (the same inference the executor compiles with).
//
// Assumes: the graph inputs have static shapes (specialize_inputs makes them so) and every
// value an operator needs at compile time (Reshape's shape, ...) is a constant
// (fold_constants makes those that are computed from constants and shapes into constants).
// Guarantees: every node output has a complete static type; the graph is otherwise
// unchanged (constants nothing reads are dropped).
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"

namespace tessel::passes {

/// A copy of `graph` with the type of every node output inferred. CompileError naming the
/// node that cannot be inferred (unsupported operator, bad attribute, mismatched shapes,
/// unknown value input), or the graph input whose shape is not static.
graph::Graph infer_types(const graph::Graph& graph);

/// The types of `values` (values of one graph; nullptr, an omitted input, gives a default
/// type), and their data where they are constants (else nullptr): what an operator's
/// inference and compilation take.
std::vector<graph::TensorType> types_of(const std::vector<const graph::Value*>& values);
std::vector<const runtime::NDArray*> constants_of(const std::vector<const graph::Value*>& values);

/// Fails with a CompileError naming the first graph input whose shape is symbolic; `pass`
/// names the pass that needs static shapes.
void require_static_inputs(const graph::Graph& graph, const std::string& pass);

}  // namespace tessel::passes

// specialize_inputs: gives a graph's inputs the concrete types a compilation is for, and
// turns the inputs whose values are given into constants.
//
// Symbolic dimensions ("N") take the extent given; a symbol must take the same extent in
// every input. The graph's nodes are copied unchanged (run infer_types or fold_constants
// next to propagate the types).
#pragma once

#include <vector>

#include "graph/graph.h"
#include "runtime/ndarray.h"

namespace tessel::passes {

/// A copy of `graph` whose input i has type `input_types[i]` (one type per graph input);
/// an input whose `input_values[i]` is given (the vector may be shorter or empty; nullptr:
/// not given) becomes a constant holding a copy of it and leaves the graph's inputs.
/// CompileError naming the input when a type's element type, rank or a static dimension
/// differs from the declared one, when a symbol takes two extents, when a value's type is not
/// the input's, or when the counts differ. A control-flow body (`declared_types` false)
/// takes its types from the node running it, whatever its inputs declare.
graph::Graph specialize_inputs(const graph::Graph& graph,
                               const std::vector<graph::TensorType>& input_types,
                               const std::vector<const runtime::NDArray*>& input_values = {},
                               bool declared_types = true);

}  // namespace tessel::passes

// What every way of running a graph needs to know about its inputs: which ones must be
// known by value at compile time, and whether an array fits an input's declared type.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "runtime/ndarray.h"

namespace tessel::executor {

/// For each graph input, whether compiling the graph needs its value (not only its shape):
/// found backwards from the operators' value inputs (a Reshape's shape, ...) through every
/// node that computes them (metadata operators need types only).
std::vector<bool> value_dependent_inputs(const graph::Graph& graph);

/// Whether the body of `loop` (a Loop) computes a value input of one of its nodes (a Slice's
/// starts, a Reshape's shape, ...) from the iteration number, the condition or a carried
/// state: such a body compiles only unrolled, each trip with those values known.
bool body_needs_trip_values(const graph::Node& loop);

/// "graph input <index> '<name>'", for messages.
std::string describe_graph_input(const graph::Value& value, size_t index);

/// Checks `array` against the declared type of graph input `index` (`value`); CompileError
/// naming the input for a wrong dtype, rank or static dimension.
void check_graph_input(const graph::Value& value, size_t index, const runtime::NDArray& array);

/// Checks `inputs` against the graph's inputs (count, presence, dtype and shape, naming the
/// input at fault) and returns the key of the compilation they need: their dtypes and
/// shapes, and the data of the inputs marked in `value_dependent`.
std::string compilation_key(const graph::Graph& graph, const std::vector<bool>& value_dependent,
                            const std::vector<const runtime::NDArray*>& inputs);

}  // namespace tessel::executor

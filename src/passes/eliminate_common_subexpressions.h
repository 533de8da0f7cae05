// eliminate_common_subexpressions: one node for each distinct computation, one constant for
// each distinct datum.
//
// Two nodes compute the same values when they call the same operator (type, domain, opset)
// with equal attributes on the same inputs; two constants are the same when their element
// type, shape and bytes are equal. The later one is replaced by the earlier one everywhere.
// Never merged: random operators (RandomNormal, Bernoulli, ...), nodes and constants that
// are graph outputs (their names are the graph's interface; they may absorb others).
#pragma once

#include "graph/graph.h"

namespace tessel::passes {

/// A copy of `graph` with repeated computations and constants merged.
graph::Graph eliminate_common_subexpressions(const graph::Graph& graph);

}  // namespace tessel::passes

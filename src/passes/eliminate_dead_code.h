// eliminate_dead_code: drops the nodes whose outputs reach no graph output, and the
// constants nothing reads any more.
//
// Guarantees: the graph inputs and outputs are unchanged (an unused graph input stays: it
// is part of the graph's interface); a kept node keeps all its outputs.
#pragma once

#include "graph/graph.h"

namespace tessel::passes {

/// A copy of `graph` without dead nodes and unused constants.
graph::Graph eliminate_dead_code(const graph::Graph& graph);

}  // namespace tessel::passes

// The inferred types of an operator that the runtime runs as a data-dependent step: its
// largest outputs, which the plan sizes their storage for (runtime/data_dependent.h).
#pragma once

#include <vector>

#include "graph/graph.h"
#include "ops/op_def.h"

namespace tessel::ops {

/// The largest outputs of `step` on the inputs of the node in `ctx`; fails naming the node
/// when the inputs do not fit the step.
std::vector<graph::TensorType> largest_outputs(const OpContext& ctx, const DataDependentStep& step);

}  // namespace tessel::ops

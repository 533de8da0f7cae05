// Walking a tensor-expression DAG: the operations reachable from some output tensors.
#pragma once

#include <vector>

#include "te/operation.h"

namespace tessel::te {

/// The operations that `outputs` depend on (themselves included), producers before
/// consumers, in a deterministic order (depth first, inputs in order of first read).
/// Distinct operations may share a name (a schedule gives their stages unique names).
std::vector<Operation> topological_order(const std::vector<Tensor>& outputs);

}  // namespace tessel::te

// Which operators compute each sample of a batch from that sample alone (symbolic_batch.h).
//
// A model with a symbolic batch runs its kernels, compiled for one sample, once per sample;
// that is right only for nodes whose outputs' sample n depends on the inputs' sample n
// alone (and on unbatched inputs). Element-wise and broadcasting operators do; so do
// convolutions, pools and normalisations over the other axes, reshapes that keep the batch
// leading, and operators with an axis (softmax, reductions, concat, slice, gather, ...) as
// long as the axis is not the batch's. Anything not known to be so is refused.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"

namespace tessel::compiler {

/// Why `node` (of the graph optimised for one sample) cannot run sample by sample when the
/// inputs marked in `batched` carry the batch in their leading dimension; empty when it can.
std::string samplewise_problem(const graph::Node& node, const std::vector<bool>& batched);

}  // namespace tessel::compiler

// Symbolic batch: one compiled model for any batch size N.
//
// An input shape may keep its leading dimension symbolic ("N"). The model is then
// optimised twice, for N = 1 and N = 2, and the two graphs compared node by node: each
// value must be *unbatched* (the same type at both, and the same data for a constant) or
// *batched* (its leading extent doubles, the rest stays), and each node reading a batched
// value must compute each output sample from that input sample alone (batch_rules.h). The
// kernels compiled for one sample then compute any batch sample by sample: the runtime
// runs every kernel that touches a batched tensor once per sample, on the samples' slices
// of its batched arguments (runtime/model_plan.h).
//
// A constant that differs between the two graphs (folded from the input's shape) is
// allowed where nodes read it only as a value input (a Reshape's target shape: its
// one-sample value is right for each sample), or where its rows repeat per sample (a mask
// expanded to the batch: read unbatched, its one-sample rows serve every sample).
// Everything else is refused with an error naming the node or value: a node that sums over
// the batch, moves it, slices it, or makes a batched value from nothing batched.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace tessel::compiler {

struct SymbolicBatch {
  /// The batch dimension's name; empty for a model with static shapes.
  std::string symbol;
  /// The values of the graph optimised for one sample whose leading dimension carries the
  /// batch (their types are one sample's).
  std::set<const graph::Value*> batched;
};

/// The symbolic batch dimension of `input_types` (the types `graph`'s inputs are compiled
/// for): the symbol of their symbolic dimensions, "" when every dimension is a constant.
/// CompileError naming the input for a symbolic dimension that is not the leading one, an
/// unnamed unknown dimension, or two symbols.
std::string batch_symbol_of(const graph::Graph& graph,
                            const std::vector<graph::TensorType>& input_types);

/// `input_types` with the batch symbol set to `batch`.
std::vector<graph::TensorType> at_batch(std::vector<graph::TensorType> input_types, int64_t batch);

/// The batched values of `at_one`, the model optimised at batch 1, checked against
/// `at_two`, the same model optimised at batch 2 (see the file comment). CompileError naming
/// the node or value that does not run sample by sample.
SymbolicBatch find_batched_values(const graph::Graph& at_one, const graph::Graph& at_two,
                                  const std::string& symbol);

}  // namespace tessel::compiler

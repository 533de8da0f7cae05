// Values whose extent the run finds, and the operators that carry such an extent through
// compiled kernels.
//
// A data-dependent step (NonZero, Unique, Compress, ...; runtime/data_dependent.h) finds one
// extent of each output when it runs; type inference gives the output its largest shape
// (the capacity). Kernels are compiled for fixed shapes, so a kernel reading such a value
// reads it *padded*: at the capacity, its valid part the first `extent` positions along the
// axis the run sets. The kernel computes all positions, and its output is padded along one
// axis in turn, valid up to the same extent (what it computes past the extent, from the
// padding, no valid position reads). That is right when every valid output position reads
// valid input positions only: element-wise and broadcasting
// operators (the other operands spanning the axis with extent 1), transposes, reshapes that
// keep the axis whole, gathers by padded indices, reductions, softmaxes, concatenations,
// slices and splits along other axes, products whose rows carry the axis, and the operators
// that compute each slice along axis 0 from that slice alone (convolutions, pools, ...).
//
// A reduction or softmax over the axis is right once the padding is filled with the
// reduction's identity (tessel.MaskPadding, which mask_run_time_padding.h inserts).
//
// Anything else is a problem, named in a CompileError with the node and the value it reads:
// an unmasked reduction or softmax over the axis, a slice or concatenation of it, a product
// contracting it, two values whose extents the run finds separately, a control-flow node,
// Shape or Size of the axis left to a kernel (mask_run_time_padding.h computes them from the
// run's extent), an operator not known to keep valid positions apart from padding.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace tessel::passes {

/// Where a value's run-time extent lies: its `axis`, and the data-dependent step output it
/// comes from (values from one source share the extent).
struct RunTimeExtent {
  int axis = -1;
  const graph::Value* source = nullptr;
};
/// The values of a graph whose extent the run finds.
using RunTimeExtents = std::map<const graph::Value*, RunTimeExtent>;

/// What a node does with run-time extents: per output the axis the run sets (-1: none) and
/// where that extent comes from; or the problem that keeps the node from carrying them.
struct ExtentFlow {
  struct Output {
    int axis = -1;
    /// The input whose extent the output has; -1 with axis >= 0: the node's step finds it.
    int from_input = -1;
  };
  std::vector<Output> outputs;
  /// Empty when the node carries its inputs' extents; else why not, and which input.
  std::string problem;
  int problem_input = -1;
};

/// The flow through `node`, whose inputs have `input_types`, the values known at compile
/// time `input_values` (nullptr elsewhere) and run-time extents `input_extents` (axis -1:
/// none), and whose outputs have `output_types`.
ExtentFlow flow_run_time_extents(const graph::Node& node,
                                 const std::vector<graph::TensorType>& input_types,
                                 const std::vector<const runtime::NDArray*>& input_values,
                                 const std::vector<graph::TensorType>& output_types,
                                 const std::vector<RunTimeExtent>& input_extents);

/// Every value of `graph` (typed, optimised) whose extent the run finds. CompileError naming
/// the node, the value it reads and the step that finds its extent, for a node that cannot
/// carry it (see the file comment).
RunTimeExtents find_run_time_extents(const graph::Graph& graph);

/// The extents `known` gives `values` (axis -1 for the others, and for absent inputs).
template <class Values>
std::vector<RunTimeExtent> extents_of(const RunTimeExtents& known, const Values& values) {
  std::vector<RunTimeExtent> extents;
  for (const graph::Value* v : values) {
    auto found = v ? known.find(v) : known.end();
    extents.push_back(found == known.end() ? RunTimeExtent{} : found->second);
  }
  return extents;
}

/// Whether any of `extents` lies along an axis.
bool any_run_time(const std::vector<RunTimeExtent>& extents);

/// Records in `known` the extents `flow` gives the outputs of `node`, whose inputs have
/// `inputs` (passes that build a graph node by node follow the extents so).
void record_outputs(RunTimeExtents& known, const graph::Node& node, const ExtentFlow& flow,
                    const std::vector<RunTimeExtent>& inputs);

/// The reduction whose identity must fill the padding for `op_type` to reduce over an axis
/// whose extent the run finds ("sum", "prod", "max", "min": tessel.MaskPadding's `fill`),
/// or "" when masking the padding does not make it right (mask_run_time_padding.h).
std::string padding_fill(const std::string& op_type);

/// Whether `op_type` computes each slice along axis 0 of its output from input 0's slice
/// alone, whatever its attributes, as long as the output keeps input 0's leading extent
/// (convolutions, pools, normalisations over the other axes, reshapes keeping the leading
/// axis, ...): such operators run sample by sample in a symbolic batch, and carry a run-time
/// extent along axis 0.
bool slices_leading_axis_alone(const std::string& op_type);

}  // namespace tessel::passes

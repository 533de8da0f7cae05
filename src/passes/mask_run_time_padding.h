// mask_run_time_padding: lets reductions and softmaxes work along an axis whose extent the
// run finds (passes/run_time_extents.h).
//
// Kernels compute such values at their largest extent; a reduction over the axis would take
// the padding in. Before each reduction (ReduceSum, ReduceMean, ReduceMax, ... and Softmax,
// LogSoftmax) over such an axis, the pass puts tessel.MaskPadding, which fills the padding
// with the reduction's identity (0 for a sum, the lowest value for a maximum, ...), reading
// the run's extent from tessel.RunTimeExtent (a runtime step, one per extent). ReduceMean
// then divides by the largest extent, so its result is scaled by largest / extent. The
// masking fuses into the reduction's kernel as an element-wise producer.
//
// Shape and Size of such a value (which fold_constants leaves unfolded) are computed from
// the run's extent too: Shape selects it where the axis is and the largest extents
// elsewhere, Size multiplies it by the other extents.
#pragma once

#include "graph/graph.h"

namespace tessel::passes {

/// A copy of `graph` (typed) with the padding masked before each reduction over an axis
/// whose extent the run finds, and Shape and Size of such axes read from the run.
graph::Graph mask_run_time_padding(const graph::Graph& graph);

}  // namespace tessel::passes

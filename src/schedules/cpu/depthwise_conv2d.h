// The CPU schedule of depthwise_conv2d_nchw() (ops/depthwise_conv2d.h), vectorised along
// output columns for any stride.
#pragma once

#include "schedule/schedule.h"
#include "target/target.h"
#include "te/operation.h"

namespace tessel::schedules {

/// Each row of outputs is accumulated in registers, several vectors of columns at a time
/// (independent accumulators), over the unrolled kernel window; rows of every channel run
/// in parallel, and so does the padding. `out` must come from depthwise_conv2d_nchw.
void schedule_depthwise_conv2d_cpu(schedule::Schedule& s, const te::Tensor& out,
                                   const target::Target& target);

}  // namespace tessel::schedules

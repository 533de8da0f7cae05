// Replaying a Trace: applies recorded primitives to a schedule of a freshly built DAG.
#pragma once

#include <vector>

#include "schedule/schedule.h"
#include "schedule/trace.h"

namespace tessel::schedule {

/// Applies one step to `schedule`. CompileError naming the step (its index `index` and
/// primitive) when the step is malformed; ScheduleError when the primitive is illegal.
void apply_step(Schedule& schedule, const TraceStep& step, size_t index = 0);

/// A schedule of `outputs` with every step of `trace` applied, in order. The DAG must use
/// the stage, tensor and loop names the trace was recorded with.
Schedule replay(const std::vector<te::Tensor>& outputs, const Trace& trace);

}  // namespace tessel::schedule

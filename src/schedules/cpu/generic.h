// The generic default CPU schedule, for the stages no operator-specific schedule covers.
#pragma once

#include <cstdint>
#include <vector>

#include "schedule/schedule.h"
#include "target/target.h"
#include "te/operation.h"

namespace tessel::schedules {

/// The default CPU schedule for stages without an operator-specific one: for every output
/// stage, the spatial loops but the innermost fused and run in parallel when the tensor is
/// large, the innermost split by the target's vector width and vectorized when it is float32 and
/// wide enough. Other stages stay at the root.
void schedule_generic(schedule::Schedule& schedule, const std::vector<te::Tensor>& outputs,
                      const target::Target& target);

/// Tensors with at least this many elements get parallel loops from schedule_generic.
inline constexpr int64_t kParallelMinElements = 1 << 15;

}  // namespace tessel::schedules

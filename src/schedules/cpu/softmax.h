// The row-parallel CPU schedule of softmax() (ops/softmax.h).
#pragma once

#include "schedule/schedule.h"
#include "te/operation.h"

namespace tessel::schedules {

/// Rows in parallel; every intermediate computed per row inside the row loop; the
/// element-wise stages vectorized.
void schedule_softmax_cpu(schedule::Schedule& s, const te::Tensor& y, int vector_lanes);

}  // namespace tessel::schedules

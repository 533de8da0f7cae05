// Softmax over the last axis of a 2-d tensor: its tensor expression and CPU schedule.
#pragma once

#include <string>

#include "schedule/schedule.h"
#include "te/compute.h"

namespace tessel::ops {

/// y[n, d] = exp(x[n, d] - max_k x[n, k]) / sum_k exp(x[n, k] - max_k x[n, k]), built from
/// four stages: "<name>.max", "<name>.exp", "<name>.sum" and the output "<name>".
te::Tensor softmax(const te::Tensor& x, const std::string& name = "softmax");

/// Rows in parallel; every intermediate computed per row inside the row loop; the
/// element-wise stages vectorized.
void schedule_softmax_cpu(schedule::Schedule& s, const te::Tensor& y, int vector_lanes);

}  // namespace tessel::ops

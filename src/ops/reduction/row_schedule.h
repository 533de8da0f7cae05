// The CPU schedule of operators that reduce over trailing axes: one parallel loop over the
// "rows" (the leading axes kept), every intermediate stage computed per row inside it.
#pragma once

#include <cstdint>
#include <vector>

#include "schedule/schedule.h"
#include "te/compute.h"

namespace tessel::ops::reduction {

/// Schedules the kernel whose only output is `y`, when every stage but the placeholders
/// can be computed one row at a time: a row is a position of the first `row_axes` axes of
/// `y` (which every stage shares as its own leading axes). The row loops of `y` are fused
/// into one, parallel when `work` (elements read) is large; every other stage is computed
/// inside it; float32 element-wise stages are vectorized along their last axis. With
/// `row_axes` 0 (one row), the generic schedule.
void schedule_rows(schedule::Schedule& s, const te::Tensor& y, int64_t row_axes, int64_t work);

/// The number of row axes when the sorted `axes` reduced are the trailing axes of a tensor
/// of rank `rank` (their first axis); 0 otherwise (no row structure).
int64_t row_axes_before(const std::vector<int64_t>& axes, int64_t rank);

}  // namespace tessel::ops::reduction

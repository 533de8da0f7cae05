// The CPU schedule of operators that reduce over trailing axes: one parallel loop over the
// "rows" (the leading axes kept), every intermediate stage computed per row inside it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schedule/schedule.h"
#include "schedules/knobs.h"
#include "target/target.h"
#include "te/operation.h"

namespace tessel::schedules {

/// The knobs of schedule_rows.
struct RowConfig {
  int64_t vector_factor = 1;  ///< vectors per vectorized chunk of a row (the vector width)
  int64_t row_block = 1;      ///< rows per parallel iteration (parallel granularity)
};

/// The row template `template_name` ("softmax", "layernorm") for a float32 input of
/// `shape` whose first `row_axes` axes are the rows: knobs vector_factor and row_block.
/// None for a single row.
TuningSpace rows_tuning_space(const std::string& template_name, const std::vector<int64_t>& shape,
                              int64_t row_axes, const target::Target& target);
/// The configuration with the knobs chosen in `knobs`.
RowConfig row_config(const KnobValues& knobs);

/// Schedules the kernel whose only output is `y`, when every stage but the placeholders
/// can be computed one row at a time: a row is a position of the first `row_axes` axes of
/// `y` (which every stage shares as its own leading axes). The row loops of `y` are fused
/// into one (blocks of `config.row_block` rows), parallel when `work` (elements read) is
/// large; every other stage is computed inside it; float32 element-wise stages are
/// vectorized along their last axis. With `row_axes` 0 (one row), the generic schedule.
void schedule_rows(schedule::Schedule& s, const te::Tensor& y, int64_t row_axes, int64_t work,
                   const target::Target& target, const RowConfig& config = {});

/// Schedules a kernel reducing over leading axes whose last axis is kept (columns: a
/// ReduceSum or ReduceMean over the rows of a [rows, features] matrix): each vector of the
/// last axis accumulates down the reduced axes, loops [kept..., last / lanes, reduced...,
/// lanes] with the lanes vectorized (parallel over the column vectors when `work`, elements
/// read, is large), the other stages vectorized along their last axis. False, changing
/// nothing, unless every stage is float32 with a last extent that is a whole number of
/// vectors.
bool schedule_columns(schedule::Schedule& s, int64_t work, const target::Target& target);

/// The number of row axes when the sorted `axes` reduced are the trailing axes of a tensor
/// of rank `rank` (their first axis); 0 otherwise (no row structure).
int64_t row_axes_before(const std::vector<int64_t>& axes, int64_t rank);

}  // namespace tessel::schedules

// Bound inference: the range of root loops each stage computes.
//
// A stage at the root (or a function parameter) covers its whole shape. A compute_at
// stage covers the region its consumers read while the loops enclosing it stay fixed:
// each consumer's load indices, written in the consumer's loop variables, are relaxed
// over every loop that is not also enclosing the stage (innermost first, so that extents
// depending on outer loops are handled), and the regions of all loads are joined.
// Reduction axes always cover their whole range.
#pragma once

#include "lower/lower_state.h"

namespace tessel::lower {

/// [lo, hi] of `e` with the loop variables `relax` (outermost first, all in
/// state.loop_extent) ranging over their loops, innermost first; an undefined end means
/// unbounded.
arith::IntervalSet relax(const ir::Expr& e, const std::vector<ir::Var>& relax, LowerState& state);

/// Sets info.root_min / info.root_extent. The consumers of `info` (and their nests) must
/// be known; ScheduleError when a consumer lies outside the attach loop.
void infer_root_ranges(StageInfo& info, LowerState& state);

}  // namespace tessel::lower

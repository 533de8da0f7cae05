// Prefetches (Schedule::prefetch) placed in the body of the loop that declares them.
//
// In iteration v of the loop, the span of the tensor that iteration v + 1 reads (from the
// first element read to the last, found by relaxing the loads' indices over the loops
// inside) is prefetched one cache line at a time: the lines are spread evenly over the
// iterations of the serial loops nested from the top of the body (the chain with the most
// iterations in all), one Prefetch at the top of the innermost one's body. Iteration
// t (counted over that chain) fetches line floor(t * lines / trips), or several lines per
// iteration when the span has more lines than the chain iterations. The last iteration
// of the loop prefetches its own span again rather than one past the tensor.
#pragma once

#include "lower/lower_state.h"

namespace tessel::lower {

/// `body`, one iteration of leaf `leaf` of `info`'s stage (its attached stages included),
/// with the prefetches the stage declares at that loop. ScheduleError when the tensor is
/// not a function argument or a stage computed at the root, when nothing inside reads it,
/// or when the span read is not bounded.
ir::Stmt with_prefetches(const StageInfo& info, int leaf, ir::Stmt body, LowerState& state);

}  // namespace tessel::lower

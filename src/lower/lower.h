// Lowering: a scheduled tensor-expression DAG becomes one loop-IR function.
//
// What lower() guarantees to the passes and codegen that follow:
//  - buffers are multi-dimensional: every Load/Store has one index per buffer dimension;
//    the parameters are the `args` tensors, in order, with their full shapes;
//  - every other stage that is not inlined lives in an Allocate (scope from the schedule)
//    placed at its attach point: at the top of the function for stages computed at the
//    root, at the top of the attach loop's body for compute_at stages, sized to the region
//    its consumers need there (constant upper bound of the region when one exists);
//  - loops start at 0; their kinds come from the annotations (Parallel, Vectorized,
//    Unrolled, Serial); no Reduce node is left: a reduction is an initialisation to the
//    identity followed by `C[..] = C[..] op value` updates;
//  - non-divisible splits, and attached regions that may overhang a tensor, are guarded by
//    IfThenElse at the innermost loop whose variable they use (passes may peel them);
//  - index expressions are simplified with the arith Analyzer.
// Schedules that cannot be lowered raise ScheduleError naming the stage and loop (e.g. a
// compute_at stage with a consumer outside the attach loop); bad arguments CompileError.
#pragma once

#include <string>
#include <vector>

#include "ir/stmt.h"
#include "schedule/schedule.h"
#include "te/operation.h"

namespace tessel::lower {

/// Lowers `schedule` to a function `name` whose parameters are `args` (placeholders read
/// by the DAG and every output of the schedule, in any order, each once).
ir::PrimFunc lower(const schedule::Schedule& schedule, const std::vector<te::Tensor>& args,
                   const std::string& name);

}  // namespace tessel::lower

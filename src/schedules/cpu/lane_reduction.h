// Reductions factored over vector lanes (rfactor): partial results in a vector, combined at
// the end, for a reduction whose result is narrower than a vector but whose innermost
// reduction is long (row statistics: softmax's max and sum, LayerNorm's moments). Used by the
// row schedule and by the generated schedules (autotune/generated_space.h).
#pragma once

#include <cstdint>
#include <string>

#include "schedule/schedule.h"
#include "te/operation.h"

namespace tessel::schedules {

/// Whether a reduction's innermost reduction loop is worth factoring over vector lanes: its
/// float32 result is narrower than a vector and the loop holds two vectors or more.
bool factorable_over_lanes(const te::OperationNode& op, int64_t lanes);
/// Splits the innermost reduction loop of `stage` by the vector width and factors the inner
/// part out: the new stage's partial results, one per lane, are computed in vectors with the
/// other reduction loops outside. Returns the new stage's name.
std::string factor_over_lanes(schedule::Schedule& s, const std::string& stage, int64_t lanes);

}  // namespace tessel::schedules

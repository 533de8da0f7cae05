// What schedules ask of a stage's operation, whatever the target: constant extents, element
// types, whether its reduction is guarded, and which of its root loops are spatial.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schedule/stage.h"
#include "te/operation.h"

namespace tessel::schedules {

/// The extent of `iv` when it is a constant, else 0.
int64_t extent_of(const ir::IterVar& iv);

/// Whether every output of `op` is float32.
bool is_float32(const te::OperationNode& op);

/// A reduction every step of which contributes (no guard): its loops may be vectorized.
bool unconditional_reduction(const te::OperationNode& op);

/// The root loops of `stage` over its operation's spatial axes, and over its reduction axes.
std::vector<std::string> spatial_roots(const schedule::Stage& stage);
std::vector<std::string> reduction_roots(const schedule::Stage& stage);

}  // namespace tessel::schedules

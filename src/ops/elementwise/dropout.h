// What the compiler's rewrite of Dropout in training mode (passes/rules/random_rules.cpp)
// shares with the operator's definition (passthrough.cpp).
#pragma once

#include "ops/op_context.h"

namespace tessel::ops::elementwise {

/// The share of elements a Dropout node drops: 0 unless it trains (opset 12's training_mode
/// input, or is_test = 0 before opset 7); then its ratio, checked to lie in [0, 1].
double dropout_ratio(const OpContext& ctx);

/// Dropout's mask type: the input's type before opset 10, bool after.
ir::DataType dropout_mask_type(const OpContext& ctx);

}  // namespace tessel::ops::elementwise

// Registration functions of the signal-processing operators (opset 17), called by
// register_signal_ops, and what they share.
#pragma once

#include <cstdint>
#include <string>

#include "ops/op_context.h"
#include "ops/registry.h"

namespace tessel::ops::signal {

/// Input `i`, a scalar known at compile time, as an integer of at least `minimum` (the
/// sizes, lengths and steps these operators take); fails naming the input as `what`.
int64_t scalar_input(const OpContext& ctx, size_t i, const std::string& what, int64_t minimum);

/// HannWindow, HammingWindow, BlackmanWindow, MelWeightMatrix.
void register_window_ops(OpRegistry& registry);
/// DFT, STFT.
void register_spectrum_ops(OpRegistry& registry);

}  // namespace tessel::ops::signal

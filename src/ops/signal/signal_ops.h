// Registration functions of the signal-processing operators (opset 17), called by
// register_signal_ops.
#pragma once

#include "ops/registry.h"

namespace tessel::ops::signal {

/// HannWindow, HammingWindow, BlackmanWindow, MelWeightMatrix.
void register_window_ops(OpRegistry& registry);
/// DFT, STFT.
void register_spectrum_ops(OpRegistry& registry);

}  // namespace tessel::ops::signal

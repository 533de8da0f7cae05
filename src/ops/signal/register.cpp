// Registers the signal-processing operators: windows, the mel filter bank, DFT and STFT.
#include "ops/signal/signal_ops.h"

namespace tessel::ops {

void register_signal_ops(OpRegistry& registry) {
  signal::register_window_ops(registry);
  signal::register_spectrum_ops(registry);
}

}  // namespace tessel::ops

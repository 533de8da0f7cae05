// The sliding window of convolutions and poolings: kernel, strides, dilations, pads, and
// the output-extent arithmetic (explicit pads, auto_pad, ceil_mode) shared by Conv,
// ConvTranspose, the poolings and MaxUnpool.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/op_context.h"

namespace tessel::ops::nn {

/// A window sliding over the spatial dimensions of an [N, C, spatial...] tensor: output
/// position o reads input positions o * stride - pad_begin + k * dilation, k in [0, kernel).
struct Window {
  std::vector<int64_t> input;  ///< input spatial extents
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads_begin;
  std::vector<int64_t> pads_end;
  std::vector<int64_t> output;  ///< output spatial extents

  size_t rank() const { return kernel.size(); }
  /// Input positions one window covers in dimension d: (kernel - 1) * dilation + 1.
  int64_t span(size_t d) const { return (kernel[d] - 1) * dilations[d] + 1; }
  /// Whether every window lies inside the input (no position reads padding).
  bool inside() const;
};

/// The kernel extents: attribute kernel_shape when the node sets it (checked against
/// `from_weight` when that is not empty), else `from_weight`.
std::vector<int64_t> kernel_extents(const OpContext& ctx, const std::vector<int64_t>& from_weight);

/// A window over `input` with `kernel` taps with the node's strides, dilations (when its
/// operator has them) and explicit pads; `output` is left empty.
Window window_attributes(const OpContext& ctx, const std::vector<int64_t>& input,
                         const std::vector<int64_t>& kernel);

/// The window of a convolution or pooling node: window_attributes, then the pads that
/// attribute auto_pad asks for and the output extents (rounded up with `ceil_mode`).
Window forward_window(const OpContext& ctx, const std::vector<int64_t>& input,
                      const std::vector<int64_t>& kernel, bool ceil_mode = false);

/// The window of a ConvTranspose node, seen as the forward window whose transpose it
/// computes (input: the transposed convolution's input extents): output extents from
/// attributes output_shape, or auto_pad, or pads, with output_padding.
Window transposed_window(const OpContext& ctx, const std::vector<int64_t>& input,
                         const std::vector<int64_t>& kernel);

}  // namespace tessel::ops::nn

// The N-d convolution: the shape rules of Conv-like nodes and the one compute shared by
// Conv, ConvTranspose, ConvInteger and QLinearConv (1-, 2- and 3-d, groups, dilations,
// strides, pads), plus the choice of the tuned 2-d NCHW float32 convolution where it fits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/nn/nn_util.h"
#include "ops/nn/window.h"

namespace tessel::ops::nn {

/// The convolution stage of Conv-like operators, found again by their schedules; its bias
/// is the stage "conv.bias" (or "conv.cast" without one).
inline constexpr const char* kConvStage = "conv";

/// The shapes of a convolution of data [N, C, spatial...] by weight [M, C / groups,
/// kernel...] into [N, M, output spatial...].
struct ConvShape {
  int64_t batch = 1, in_channels = 1, out_channels = 1, groups = 1;
  Window window;
  std::vector<int64_t> output;  ///< [N, M, output spatial...]
};

/// The shapes of a Conv-like node with data input `x` and weight input `w` (attributes
/// group, kernel_shape, strides, dilations, pads, auto_pad); fails naming both shapes when
/// ranks or channels do not match.
ConvShape conv_shape(const OpContext& ctx, size_t x, size_t w);

/// The shapes of a ConvTranspose node (weight [C, M / groups, kernel...]); the window is
/// the one of transposed_window.
ConvShape conv_transpose_shape(const OpContext& ctx);

/// Fails unless input `i` (a per-channel bias or parameter) is absent or has shape
/// [channels].
void check_channel_input(const OpContext& ctx, size_t i, int64_t channels, const char* what);

/// The data padded by the window's pads (and at the end up to what every window reads) as a
/// stage named `name`, in the type the data loads; zero outside the data.
te::Tensor pad_data(const Operand& data, const Window& w, const std::string& name);

/// out[n, m, o...] = sum_{c, k...} data[n, g * C/groups + c, o * stride - pad_begin +
/// k * dilation] * weight[m, c, k...] with g = m / (M / groups), reading zero outside the
/// data (through a padding stage "<name>.pad" when some window leaves it). The element
/// type is what the operands load. Loops: n, m, o0, o1, ..., rc, k0, k1, ...
te::Tensor conv_nd(const ConvShape& shape, const Operand& data, const Operand& weight,
                   const std::string& name);

/// Whether a convolution of `shape` on `dtype` takes the tuned conv2d compute and schedule
/// (ops/conv2d.h, schedules/cpu/conv2d.h): 2-d float32, one group, no dilation, equal
/// strides.
bool use_tuned_conv2d(const ConvShape& shape, ir::DataType dtype);

/// Whether a convolution is a float32 2-d depthwise one (one input and one output channel
/// per group, no dilation, equal strides), which takes ops/depthwise_conv2d.h and
/// schedules/cpu/depthwise_conv2d.h.
bool use_depthwise_conv2d(const ConvShape& shape, ir::DataType dtype);

/// Whether the window pads every side equally and its output extents follow from that pad
/// alone (conv2d_nchw's one `pad`); otherwise the data is padded first.
bool symmetric_pads(const Window& w);

/// The output (of the convolution's `output_shape`) that reads `conv` element by element
/// after its bias (and, in a fused group, the epilogue operators), all inlined: computed
/// per register tile of the convolution. Undefined when there is none. Inlining is applied
/// at lowering, so readers are followed through inlined stages.
te::Tensor elementwise_epilogue(schedule::Schedule& s, const te::Tensor& conv,
                                const std::vector<int64_t>& output_shape,
                                const std::vector<te::Tensor>& outputs);

}  // namespace tessel::ops::nn

// Depthwise 2-d convolution (one filter per channel, NCHW): its tensor expression (its CPU
// schedule: schedules/cpu/depthwise_conv2d.h).
#pragma once

#include <cstdint>
#include <string>

#include "te/compute.h"

namespace tessel::ops {

/// out[n, c, oh, ow] = sum_{ry, rx} pad(data)[n, c, oh*stride + ry, ow*stride + rx] *
/// weight[c, 0, ry, rx]. The padding stage "<name>.pad" also splits each row into its
/// `stride` phases ([N][C][H + 2 pad][stride][ceil((W + 2 pad) / stride)]), so that the
/// columns a vector of outputs reads are contiguous whatever the stride.
te::Tensor depthwise_conv2d_nchw(const te::Tensor& data, const te::Tensor& weight, int64_t stride,
                                 int64_t pad, const std::string& name = "conv");

}  // namespace tessel::ops

// 2-d convolution (NCHW data and output, OIHW weights): its tensor expression, over blocks of
// output channels (its CPU schedule: schedules/cpu/conv2d.h).
#pragma once

#include <cstdint>
#include <string>

#include "te/compute.h"

namespace tessel::ops {

struct Conv2dParams {
  int64_t stride = 1;
  int64_t pad = 0;
  /// Output channels per weight block (the vector of the inner loop): two of the target's
  /// vectors of floats (schedules::conv2d_weight_block).
  int64_t weight_block = 0;
};

/// `data` ([N, C, H, W], or blocked [N, C/x, H, W, x]) with `pad` zeros on both sides of H
/// and W, as a stage "<name>.pad" (n, c, h, w[, ci]); `data` itself when it is an input
/// tensor that needs no padding, read in place.
te::Tensor pad_spatial(const te::Tensor& data, int64_t pad, const std::string& name);

/// out[n, k, oh, ow] = sum_{c, ry, rx} pad(data)[n, c, oh*stride + ry, ow*stride + rx] *
/// weight[k, c, ry, rx], computed from a zero-padding stage "<name>.pad" (none when `data` is
/// an input tensor that needs no padding) and the weights
/// packed by a stage "<name>.packed" into [K/kb][C][R][S][kb] blocks (output channels
/// padded with zeros to a multiple of kb): with weights known at compile time, the packing
/// is evaluated once by the compiler. The convolution stage `name` computes whole blocks
/// of output channels (loops n, k, oh, ow, rc, ry, rx); when k is not a multiple of kb, a
/// stage "<name>.k" drops the extra channels and is what this returns.
te::Tensor conv2d_nchw(const te::Tensor& data, const te::Tensor& weight, const Conv2dParams& p,
                       const std::string& name = "conv");

}  // namespace tessel::ops

// 2-d convolution (NCHW data, OIHW weights): its tensor expression and its CPU schedule.
#pragma once

#include <cstdint>
#include <string>

#include "schedule/schedule.h"
#include "te/compute.h"

namespace tessel::ops {

struct Conv2dParams {
  int64_t stride = 1;
  int64_t pad = 0;
};

/// out[n, k, oh, ow] = sum_{c, ry, rx} pad(data)[n, c, oh*stride + ry, ow*stride + rx] *
/// weight[k, c, ry, rx], with zero padding computed by a stage named "<name>.pad".
/// Loops of the output stage: n, k, oh, ow, rc, ry, rx.
te::Tensor conv2d_nchw(const te::Tensor& data, const te::Tensor& weight, const Conv2dParams& p,
                       const std::string& name = "conv");

/// The knobs of the CPU conv2d schedule.
struct Conv2dConfig {
  int64_t tile_k = 4;   ///< output channels per register tile
  int64_t tile_oh = 2;  ///< output rows per register tile
  int64_t tile_ow = 8;  ///< output columns per register tile (vectorized)
  bool parallel = true;
};

/// A register tile fitted to the host (more output channels with AVX-512's 32 registers).
Conv2dConfig default_conv2d_config();

/// Direct convolution: each tile_k x tile_oh x tile_ow block of the output is accumulated in
/// a local buffer over (c, ry, rx) with the columns vectorized and the rest unrolled; the
/// padding stage is computed once at the root; (n, k-block) pairs run in parallel.
void schedule_conv2d_cpu(schedule::Schedule& s, const te::Tensor& out, const Conv2dConfig& config);

}  // namespace tessel::ops

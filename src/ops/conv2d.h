// 2-d convolution (NCHW data and output, OIHW weights): its tensor expression and its CPU
// schedule, vectorised over blocks of output channels.
#pragma once

#include <cstdint>
#include <string>

#include "schedule/schedule.h"
#include "target/target.h"
#include "te/compute.h"

namespace tessel::ops {

struct Conv2dParams {
  int64_t stride = 1;
  int64_t pad = 0;
  /// Output channels per weight block (the vector of the inner loop): two of the target's
  /// vectors of floats (conv2d_weight_block).
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

/// The knobs of the CPU conv2d schedule.
struct Conv2dConfig {
  /// Output columns per register tile (each a block of kb channels); 0: fitted to the
  /// output width and the host's registers.
  int64_t tile_ow = 0;
  bool parallel = true;
};

/// The default knobs (tiles fitted to each convolution).
Conv2dConfig default_conv2d_config();

/// Output channels per packed weight block of conv2d_nchw on `target`: two vectors.
inline int64_t conv2d_weight_block(const target::Target& target) {
  return 2 * target.float_lanes();
}

/// Output columns per register tile of a direct convolution `ow` wide whose columns each
/// hold `vectors_per_column` vectors of output channels: as many as fit the host's
/// registers next to the weights, the broadcast input and LLVM's temporaries (10
/// accumulators with AVX2, 24 with AVX-512; more run at half speed or spill, measured on
/// ResNet's layers); among the wider half of the candidates, the one whose tiles waste the
/// fewest columns (7 columns take 4 + 3, not 5 + 2), the wider on a tie.
int64_t fitted_conv_tile_ow(int64_t ow, int64_t vectors_per_column, const target::Target& target);

/// Each tile of one block of kb output channels x tile_ow columns of one output row is
/// accumulated in registers over (c, ry, rx): per step, the kb weights of the block are
/// loaded as vectors and each input element is broadcast; the tile is then written to the
/// NCHW output. Tiles run in parallel over (n, channel block, row); the padding stage is
/// computed once at the root. `out` is what conv2d_nchw returned, or its convolution stage.
/// An `epilogue` (an output
/// of out's shape reading out element by element: bias, residual add, activation, with the
/// stages between inlined) is computed per tile from the registers, and `out` is never
/// stored.
void schedule_conv2d_cpu(schedule::Schedule& s, const te::Tensor& out, const target::Target& target,
                         const Conv2dConfig& config, const te::Tensor& epilogue = {});

}  // namespace tessel::ops

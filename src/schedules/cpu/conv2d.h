// The direct CPU schedule of conv2d_nchw() (ops/conv2d.h), vectorised over blocks of output
// channels, and the target's sizes of its blocks and register tiles.
#pragma once

#include <cstdint>

#include "schedule/schedule.h"
#include "target/target.h"
#include "te/operation.h"

namespace tessel::schedules {

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

}  // namespace tessel::schedules

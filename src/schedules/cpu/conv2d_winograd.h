// The CPU schedule of the Winograd convolution conv2d_winograd_nchwc()
// (ops/conv2d_winograd.h) and its tuning template.
#pragma once

#include <cstdint>
#include <optional>

#include "schedule/schedule.h"
#include "schedules/knobs.h"
#include "target/target.h"
#include "te/operation.h"

namespace tessel::schedules {

/// The knobs of the Winograd schedule.
struct Conv2dWinogradConfig {
  int64_t tile_p = 0;     ///< tiles per register tile of the products (0: fitted)
  int64_t tile_kb = 0;    ///< blocks of output channels per register tile (0: fitted)
  int64_t unroll_ci = 1;  ///< channels of an input block unrolled in the products
  /// Each iteration of the products' parallel loop (a point and a tile of output blocks)
  /// prefetches the transformed weights of the next one (Schedule::prefetch). Unset: where
  /// the transformed weights take 1 MiB or more.
  std::optional<bool> prefetch;
};

/// The Winograd template ("conv2d_nchwc_winograd") for `tiles` tiles and `blocks` output
/// blocks of `vectors` target vectors each, input blocks of `in_block` channels.
TuningSpace conv2d_winograd_tuning_space(int64_t tiles, int64_t blocks, int64_t vectors,
                                         int64_t in_block, const target::Target& target);
Conv2dWinogradConfig conv2d_winograd_config(const KnobValues& knobs);

/// The padding and the input transform run in parallel over tiles, each tile's alpha^2
/// values unrolled and vectorised over a block's channels; the products as register tiles
/// of tile_kb output blocks x tile_p tiles accumulated over the input channels, in parallel
/// over (point, output block); the output transform per m x m tile, unrolled, with the
/// `epilogue` (bias, residual add, activation; see schedule_conv2d_nchwc_cpu) applied to
/// each value before it is stored.
void schedule_conv2d_winograd_cpu(schedule::Schedule& s, const te::Tensor& out,
                                  const target::Target& target, const te::Tensor& epilogue = {},
                                  const Conv2dWinogradConfig& config = {});

}  // namespace tessel::schedules

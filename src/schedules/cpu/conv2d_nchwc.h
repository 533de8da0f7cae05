// The direct CPU schedule of conv2d_nchwc() (ops/conv2d_nchwc.h), convolutions in the
// blocked channel layout NCHW[x]c: register tiles of output channel blocks, their default
// sizes for the target, and the tuning templates.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "schedule/schedule.h"
#include "schedules/knobs.h"
#include "target/target.h"
#include "te/operation.h"

namespace tessel::schedules {

/// How a blocked convolution's output channels reduce over the input channels.
enum class ConvChannels {
  Dense,       ///< over the run of input blocks its groups read, each channel broadcast
  Depthwise,   ///< one channel per lane
  LaneGroups,  ///< over the lane's own group's channels (ops::conv_groups_in_lanes)
};

/// The knobs of the CPU schedule.
struct Conv2dNchwcConfig {
  /// Output columns and rows per register tile (0: fitted, default_conv_spatial_tile).
  int64_t tile_ow = 0, tile_oh = 0;
  /// Blocks of output channels per register tile (0: fitted, default_conv_tile_kb).
  int64_t tile_kb = 0;
  /// Reduce over the window outside the input channels (unset: for NCHW data, whose few
  /// channels lie a plane apart; on AVX2 the 3x3 and 7x7 stems ran 7-8 % faster so).
  std::optional<bool> window_outer;
  bool parallel_rows = true;  ///< rows join (n, blocks) in the parallel loop
  /// Channels of an input block unrolled (1: none; 0: default_conv_unroll_ci).
  int64_t unroll_ci = 0;
  /// Input blocks per block of the reduction (0: no blocking, the default). A blocked
  /// reduction accumulates a parallel iteration's rows in a local buffer block after block,
  /// so that the weights of a block stay in L1 while the column tiles sweep over them; with
  /// rows in the parallel loop (parallel_rows) only, where that buffer holds one row tile.
  /// Blocked input only (not groups in lanes). Not on by default: on Zen 3 (AVX2) blocks of
  /// 8 or 16 moved ResNet's and ResNeXt's 1x1 layers between 0.9x and 1.1x of unblocked
  /// within the VM's noise, so it is left to the tuner.
  int64_t tile_ci = 0;
  /// Read the input in place, the borders by clamped loads set to zero, instead of a
  /// zero-padded copy made first (unset: default_conv_pad_in_place).
  std::optional<bool> pad_in_place;
};

/// Whether a padded convolution reads its input in place when the knob is not set: when it
/// does fewer than 256 multiply-adds per input element (loop_partition then runs the
/// interior unguarded). Below that a padded copy costs about as much as the convolution: a
/// depthwise window (2-25 per element: 5x5 in place 1.1-1.3x and dilated 5x5 1.3-1.5x
/// faster; EfficientNet-B0, MobileNetV3 and MnasNet 3-10 % faster end to end) and the 3x3
/// stem of 3 channels to 32 at stride 2 (72 per element: in place 1.1x faster on AVX2, 2x on
/// AVX-512); above it the copy pays (the 7x7 stem to 64 channels, 784 per element, ran 10 %
/// faster with it).
bool default_conv_pad_in_place(double multiply_adds_per_input);

/// Blocks of output channels per register tile when the knob is not set: of 4, 2 and 1 that
/// divide the `blocks` of the output, the one whose tile (blocks of `vectors` target vectors
/// each, by as many of the `columns` as the target's accumulators hold beside the weights:
/// register_tile_accumulators) feeds the most FMAs per operand loaded, the larger on a tie
/// (1 when the blocks share no input: a depthwise or grouped convolution). Each step of a
/// tile loads its blocks' weight vectors and broadcasts one input element per column, and
/// the load ports, not the FMA units, set the pace: with AVX-512's 16-channel blocks of one
/// vector, 4 blocks x 6 columns load 10 operands per 24 FMAs where 1 block x 24 columns load
/// 25; with AVX2's blocks of two vectors, 4 blocks would leave room for one column (8 loads
/// per 8 FMAs), 1 block for 6 (8 loads per 12 FMAs).
int64_t default_conv_tile_kb(int64_t blocks, bool unshared_input, int64_t vectors, int64_t columns,
                             const target::Target& target);

/// Rows and columns of output positions in a register tile.
struct ConvSpatialTile {
  int64_t rows = 1, columns = 1;
};

/// The rows x columns of a register tile when the knobs are not set, for an output of `oh` x
/// `ow` positions of `vectors` accumulator vectors each: as many positions as the target's
/// accumulators hold beside the weights (register_tile_accumulators), at most 8, as one row
/// or two rows of half as many columns, whichever pads the output less (one row on a tie).
/// A tile that fills the registers outruns an exact fit with fewer accumulators: on AVX2,
/// 6 columns of 2 vectors ran a 28-column layer 15 % faster than 4, padding 28 to 30; a
/// 14 x 14 or 7 x 7 output takes 2 rows of 3. More than 8 positions ran slower (AVX-512's
/// 3x3 stem to 2 blocks: 12 positions 0.67x oneDNN, 8 positions 1.1x).
ConvSpatialTile default_conv_spatial_tile(int64_t oh, int64_t ow, int64_t vectors,
                                          const target::Target& target);

/// Input blocks per reduction block when the knob is not set, for a reduction over
/// `in_blocks` input blocks whose weights take `tile_weight_bytes_per_in_block` bytes per
/// input block for a register tile's output blocks: the largest divisor of `in_blocks` whose
/// weights fill at most half the target's L1 data cache (all of them when they fit).
int64_t default_conv_tile_ci(int64_t in_blocks, int64_t tile_weight_bytes_per_in_block,
                             const target::Target& target);

/// Channels of an input block unrolled in the reduction when the knob is not set: 4 where
/// the block holds a multiple of 4, else 1 (on AVX2, 4 ran ResNet's strided layers 3-5 %
/// faster).
int64_t default_conv_unroll_ci(int64_t in_block);

/// The most columns of `vectors` accumulator vectors each that a register tile may hold in
/// the tuning spaces: the target's vector registers less those the operands need.
int64_t widest_register_tile(int64_t vectors, const target::Target& target);

/// The conv2d_nchwc template ("conv2d_nchwc", "conv2d_nchwc_1x1", "conv2d_nchwc_depthwise"
/// or "conv2d_nchwc_grouped") for an output [N, K/x, OH, OW, x] whose blocks hold `vectors`
/// target vectors, with input blocks of `in_block` channels (1: NCHW data), each output block
/// reducing over `in_blocks` of them; a `padded` convolution may read its input in place.
TuningSpace conv2d_nchwc_tuning_space(const std::vector<int64_t>& output, int64_t vectors,
                                      int64_t in_block, int64_t in_blocks, ConvChannels channels,
                                      bool pointwise, bool padded, const target::Target& target);
/// The configuration of a convolution with the knobs chosen in `knobs`, the others unset
/// (the schedule fits them to the convolution).
Conv2dNchwcConfig conv2d_nchwc_config(const KnobValues& knobs);

/// Register tiles of tile_kb blocks of output channels x tile_oh rows x tile_ow columns
/// of the output, accumulated over the input channels and the kernel window with each block in
/// vectors and each input element broadcast (depthwise: the input read as vectors of
/// channels), then stored as whole vectors. Tiles run in parallel over (n, block, row).
/// An `epilogue` (an output of out's shape reading out element by element, the stages
/// between inlined: bias, residual add, activation) is computed per tile from the
/// registers, and `out` is never stored.
void schedule_conv2d_nchwc_cpu(schedule::Schedule& s, const te::Tensor& out,
                               const target::Target& target, const te::Tensor& epilogue = {},
                               const Conv2dNchwcConfig& config = {});

}  // namespace tessel::schedules

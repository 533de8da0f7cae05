// The direct CPU schedule of conv2d_nchwc() (ops/conv2d_nchwc.h), convolutions in the
// blocked channel layout NCHW[x]c: register tiles of output channel blocks, their default
// sizes for the target, and the tuning templates.
#pragma once

#include <cstdint>
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
  int64_t tile_ow = 0;  ///< output columns per register tile (0: fitted to the row)
  /// Blocks of output channels per register tile (0: fitted, default_conv_tile_kb).
  int64_t tile_kb = 0;
  int64_t tile_oh = 1;        ///< output rows per register tile
  bool window_outer = false;  ///< reduce over the window outside the input-channel blocks
  bool parallel_rows = true;  ///< rows join (n, blocks) in the parallel loop
  int64_t unroll_ci = 1;      ///< channels of an input block unrolled (1: none)
  /// Read the input in place, the borders by clamped loads set to zero, instead of a
  /// zero-padded copy made first (conv2d_nchwc_config: default_conv_pad_in_place).
  bool pad_in_place = false;
};

/// Whether a padded convolution reads its input in place when the knob is not set: a
/// depthwise one. A depthwise window does few multiply-adds per element read, so a padded
/// copy costs about as much as the convolution (in place: 5x5 1.1-1.3x and dilated 5x5
/// 1.3-1.5x faster). Strided, the copy measured faster alone, with the input in the caches
/// from the run before; inside a model, where the input was just written by another kernel,
/// the copy's passes over memory cost more than the clamped loads (EfficientNet-B0,
/// MobileNetV3 and MnasNet 3-10 % faster end to end in place).
bool default_conv_pad_in_place(bool depthwise);

/// Blocks of output channels per register tile when the knob is not set: of 4, 2 and 1 that
/// divide the `blocks` of the output, the one whose tile (blocks of `vectors` target vectors
/// each, by as many of the `columns` as the target's accumulators hold) feeds the most FMAs
/// per operand loaded, the larger on a tie (1 when the blocks share no input: a depthwise or
/// grouped convolution). Each step of a tile loads its blocks' weight vectors and
/// broadcasts one input element per column, and the load ports, not the FMA units, set the
/// pace: with AVX-512's 16-channel blocks of one vector, 4 blocks x 6 columns load 10
/// operands per 24 FMAs where 1 block x 24 columns load 25; with AVX2's blocks of two
/// vectors, 4 blocks would leave room for one column (8 loads per 8 FMAs), 1 block for 5.
int64_t default_conv_tile_kb(int64_t blocks, bool unshared_input, int64_t vectors, int64_t columns,
                             const target::Target& target);

/// The most columns of `vectors` accumulator vectors each that a register tile may hold in
/// the tuning spaces: the target's vector registers less those the operands need.
int64_t widest_register_tile(int64_t vectors, const target::Target& target);

/// The conv2d_nchwc template ("conv2d_nchwc", "conv2d_nchwc_1x1", "conv2d_nchwc_depthwise"
/// or "conv2d_nchwc_grouped") for an output [N, K/x, OH, OW, x] whose blocks hold `vectors`
/// target vectors, with input blocks of `in_block` channels (1: NCHW data); a `padded`
/// convolution may read its input in place.
TuningSpace conv2d_nchwc_tuning_space(const std::vector<int64_t>& output, int64_t vectors,
                                      int64_t in_block, ConvChannels channels, bool pointwise,
                                      bool padded, const target::Target& target);
/// The default configuration of a convolution (`depthwise` or not) with the knobs chosen in
/// `knobs`.
Conv2dNchwcConfig conv2d_nchwc_config(const KnobValues& knobs, bool depthwise);

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

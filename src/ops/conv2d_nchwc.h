// 2-d convolution in the blocked channel layout NCHW[x]c: data and output are
// [N, C/x, H, W, x] (channels in blocks of x, the last block padded with zeros), so that a
// register tile of output channels is stored with whole vectors. Its tensor expression (its
// CPU schedule: schedules/cpu/conv2d_nchwc.h); the graph pass passes::convert_conv_layout
// places these convolutions and the layout changes around them.
#pragma once

#include <cstdint>
#include <string>

#include "schedules/cpu/conv2d_nchwc.h"
#include "te/compute.h"

namespace tessel::ops {

struct Conv2dNchwcParams {
  int64_t stride = 1;
  int64_t pad = 0;
  /// Output channels per block (x of the output layout).
  int64_t block = 16;
  /// One filter per channel (weight [C, 1, R, S]); the data must then be blocked by `block`.
  bool depthwise = false;
  /// Groups of a grouped convolution (weight [K, C/groups, R, S]); grouped_conv_fits says
  /// which groupings the blocks can take.
  int64_t groups = 1;
  int64_t dilation = 1;  ///< spacing of the kernel's taps
};

/// Whether a convolution of `groups` groups of `in_per_group` input and `out_per_group`
/// output channels runs blocked with input blocks of `in_block` and output blocks of
/// `block` channels: each output block reads a run of whole input blocks (its groups' input
/// channels), as when a block holds whole groups (block a multiple of out_per_group; the
/// last block may end in padding channels) or a group whole blocks.
bool grouped_conv_fits(int64_t groups, int64_t in_per_group, int64_t out_per_group,
                       int64_t in_block, int64_t block);

/// The convolution of `data` ([N, C, H, W], or blocked [N, ceil(C/xi), H, W, xi]) by
/// `weight` ([K, C, R, S] in ONNX's layout) into [N, ceil(K/x), OH, OW, x]:
///   out[n, kb, oh, ow, kk] = sum_{c, ry, rx} data[n, c, oh*stride + ry*dilation - pad,
///                                               ow*stride + rx*dilation - pad]
///                                          * weight[kb*x + kk, c, ry, rx]
/// (depthwise: the sum over ry, rx of channel kb*x + kk only; grouped: over the channels of
/// the output channel's group, the sum running over the input blocks of the output block's
/// groups with zero weights for the other groups' channels). The channels past K are zero.
/// Stages: "<name>.pad" (zero padding; none for an unpadded input tensor), "<name>.packed"
/// (the weights in [K/x][C/xi][R][S][xi][x] blocks, grouped [K/x][span][R][S][xi][x] over
/// the span of input blocks an output block reads, depthwise [C/x][R][S][x], padding
/// channels zero: evaluated by the compiler when the weights are constant) and `name`.
te::Tensor conv2d_nchwc(const te::Tensor& data, const te::Tensor& weight,
                        const Conv2dNchwcParams& p, const std::string& name = "conv");

/// Whether each output lane of a grouped convolution reduces over its own group's channels
/// of the one input block its output block reads: depthwise convolutions, and groups
/// narrower than a block whose input channels fill exactly one input block (ResNeXt's
/// groups of 4 and 8 channels). The input is then read as whole blocks permuted per lane,
/// with no multiply-adds by the zero weights of other groups.
bool conv_groups_in_lanes(int64_t groups, int64_t in_per_group, int64_t out_per_group,
                          int64_t in_block, int64_t block);

/// The ConvChannels of convolution `p` of `in_channels` (in blocks of `in_block`; 1: NCHW
/// data) into `out_channels`.
schedules::ConvChannels conv_channels(const Conv2dNchwcParams& p, int64_t in_channels,
                                      int64_t out_channels, int64_t in_block);

}  // namespace tessel::ops

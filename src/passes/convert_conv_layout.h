// convert_conv_layout: runs 2-d float32 convolutions in the blocked channel layout
// NCHW[x]c and places the layout changes around them.
//
// Each Conv that fits (2-d, float32, static shapes, equal strides and dilations, the same
// pad on every side, one group, depthwise or groups the blocks can hold, output channels
// that take a block) becomes a
// tessel.Conv2dNCHWc whose output is blocked by x = 16 (the channels padded with zeros to a
// multiple of 16 when that adds at most 1/16 of them; else x = 8 where 8 divides them; a
// tensor of one pixel per channel, as in squeeze-and-excitation, takes a block whatever its
// channels).
// Element-wise operators that keep the padding channels finite (Relu, LeakyRelu, Tanh,
// HardSwish, Sigmoid, HardSigmoid, Erf, Neg, Abs, Clip; Add, Sub, Mul of blocked tensors,
// per-channel operands such as a bias or a squeeze-and-excitation scale, and scalar
// constants; Div by a constant other than zero) run on blocked tensors as they are: the
// readers of a blocked tensor multiply its padding channels by zero weights, pool them per
// channel or drop them, so any finite value there will do (convolutions and layout
// changes write zeros). An element-wise operator with a blocked operand blocks a whole NCHW
// operand too where an element-wise or injective operator computes it (the Transpose back
// from channels-last in ConvNeXt's residual, the scaling after it): that layout change
// joins the kernel computing the operand. 2-d MaxPool and AveragePool run as 3-d pools
// whose window spans one channel of a block, GlobalAveragePool and GlobalMaxPool (and
// ReduceMean and ReduceMax over axes 2 and 3) as such pools over the whole image; a channel
// Concat of blocked tensors of one block is the Concat of their blocks
// (no padding channels there). Where channels do not fall on whole blocks, a channel Concat
// of blocked tensors, a channel shuffle (Reshape to [N, g, C/g, H, W], Transpose (0, 2, 1,
// 3, 4), Reshape back: ShuffleNet) and a Slice of the channels become
// tessel.ChannelGatherNCHWc, which reads the blocks of its inputs at the channels it needs
// and writes the blocks of its output. A blocked tensor goes
// back to NCHW (tessel.LayoutFromNCHWc) only where an NCHW reader or a graph output needs
// it, once; an NCHW tensor is blocked (tessel.LayoutToNCHWc) once, where a convolution
// first reads it, unless its channels take no block (the 3 channels of an image): the
// convolution then reads NCHW directly. So a chain of convolutions and
// element-wise operators keeps the blocked layout throughout, and transforms that would
// cancel are never made.
//
// A 3x3 convolution of stride 1 between blocked tensors of enough channels takes Winograd's
// F(4x4, 3x3) (attribute winograd; ops/conv2d_winograd.h) unless the options turn it off.
//
// Guarantees: graph inputs and outputs keep their names and NCHW types; results are
// unchanged.
#pragma once

#include "graph/graph.h"
#include "target/target.h"

namespace tessel::passes {

struct ConvLayoutOptions {
  /// 3x3 convolutions by Winograd's minimal filtering where ops::default_winograd_tile
  /// chooses it.
  bool winograd = true;
};

graph::Graph convert_conv_layout(const graph::Graph& graph, const target::Target& target,
                                 const ConvLayoutOptions& options = {});

}  // namespace tessel::passes

// Conv2d in the blocked channel layout NCHW[x]c: compute (padding and weight-packing
// stages).
#include "ops/conv2d_nchwc.h"

#include <algorithm>

#include "ops/conv2d.h"
#include "ops/op_util.h"
#include "support/error.h"

namespace tessel::ops {
namespace {

int64_t const_dim(const te::Tensor& t, int d) { return constant_dim(t, d, "conv2d_nchwc"); }

}  // namespace

te::Tensor conv2d_nchwc(const te::Tensor& data, const te::Tensor& weight,
                        const Conv2dNchwcParams& p, const std::string& name) {
  bool blocked = data.ndim() == 5;
  if ((data.ndim() != 4 && !blocked) || weight.ndim() != 4)
    TESSEL_USER_ERROR("conv2d_nchwc '", name, "': data must be 4-d or 5-d and weight 4-d, got ",
                      data.ndim(), "-d and ", weight.ndim(), "-d");
  int64_t n = const_dim(data, 0), blocks_in = const_dim(data, 1), h = const_dim(data, 2),
          w = const_dim(data, 3), in_block = blocked ? const_dim(data, 4) : 1;
  int64_t k = const_dim(weight, 0), r = const_dim(weight, 2), s = const_dim(weight, 3);
  int64_t c = p.depthwise ? k : const_dim(weight, 1) * p.groups;
  if (p.depthwise && (const_dim(weight, 1) != 1 || !blocked || in_block != p.block))
    TESSEL_USER_ERROR("conv2d_nchwc '", name, "': a depthwise convolution takes weight "
                      "[C, 1, R, S] and data blocked by ", p.block);
  if ((c + in_block - 1) / in_block != blocks_in)
    TESSEL_USER_ERROR("conv2d_nchwc '", name, "': data has ", blocks_in, " blocks of ", in_block,
                      " channels, the weight expects ", c, " channels");
  if (p.groups > 1 && (p.depthwise || k % p.groups != 0 ||
                       !grouped_conv_fits(p.groups, c / p.groups, k / p.groups, in_block, p.block)))
    TESSEL_USER_ERROR("conv2d_nchwc '", name, "': ", p.groups, " groups of ", c / p.groups,
                      " input and ", k / p.groups, " output channels do not fit blocks of ",
                      in_block, " and ", p.block, " channels");
  if (p.stride <= 0 || p.dilation <= 0 || p.pad < 0 || p.block <= 0)
    TESSEL_USER_ERROR("conv2d_nchwc '", name, "': stride, dilation and block must be positive "
                      "and pad non-negative, got ", p.stride, ", ", p.dilation, ", ", p.block,
                      " and ", p.pad);
  // The extent of the kernel's taps.
  int64_t span_r = (r - 1) * p.dilation + 1, span_s = (s - 1) * p.dilation + 1;
  int64_t oh = (h + 2 * p.pad - span_r) / p.stride + 1;
  int64_t ow = (w + 2 * p.pad - span_s) / p.stride + 1;
  if (oh <= 0 || ow <= 0)
    TESSEL_USER_ERROR("conv2d_nchwc '", name, "': a ", r, "x", s, " kernel does not fit a ", h,
                      "x", w, " input padded by ", p.pad);

  te::Tensor padded = pad_spatial(data, p.pad, name);
  int64_t block = p.block, blocks = (k + block - 1) / block;
  ir::Expr zero = ir::make_const(weight.dtype(), 0);
  te::IterVar ry = te::reduce_axis(r, "ry");
  te::IterVar rx = te::reduce_axis(s, "rx");
  std::vector<ir::Expr> out_shape = {n, blocks, oh, ow, block};
  std::vector<std::string> out_names = {"n", "kb", "oh", "ow", "kk"};

  int64_t in_per_group = p.depthwise ? 1 : c / p.groups;
  int64_t out_per_group = p.depthwise ? 1 : k / p.groups;
  if (conv_channels(p, c, k, in_block) != schedules::ConvChannels::Dense) {
    // Lane kk of output block kb reduces over channels (kk / out_per_group) * in_per_group
    // + j of input block kb, its own group's: no multiply-adds by other groups' zeros.
    // Weights [kb, ry, rx, (j,) kk]: the j axis only when a group has several input channels.
    std::vector<ir::Expr> packed_shape = {blocks, r, s};
    std::vector<std::string> packed_names = {"kb", "ry", "rx"};
    std::vector<te::IterVar> reduce = {ry, rx};
    if (in_per_group > 1) {
      packed_shape.push_back(in_per_group);
      packed_names.push_back("j");
      reduce.push_back(te::reduce_axis(in_per_group, "rj"));
    }
    packed_shape.push_back(block);
    packed_names.push_back("kk");
    te::Tensor packed = te::compute(
        packed_shape,
        [&](const std::vector<te::Var>& i) {
          ir::Expr ch = i[0] * block + i.back();
          ir::Expr j = in_per_group > 1 ? ir::Expr(i[3]) : ir::make_const(ir::DataType::Int(64), 0);
          return ir::select(ch < k, weight(ir::min(ch, k - 1), j, i[1], i[2]), zero);
        },
        name + ".packed", packed_names);
    return te::compute(
        out_shape,
        [&](te::Var b, te::Var kb, te::Var y, te::Var x, te::Var kk) {
          ir::Expr channel = kk;
          std::vector<ir::Expr> weight_at = {kb, ry.var, rx.var};
          if (out_per_group > 1 || in_per_group > 1) channel = kk / out_per_group * in_per_group;
          if (in_per_group > 1) {
            channel = channel + reduce[2].var;
            weight_at.push_back(reduce[2].var);
          }
          weight_at.push_back(kk);
          return te::sum(padded(b, kb, y * p.stride + ry.var * p.dilation,
                                x * p.stride + rx.var * p.dilation, channel) *
                             packed(weight_at),
                         reduce);
        },
        name, out_names);
  }

  // The input blocks output block kb reads: all of them, or (grouped) the run of `span`
  // blocks from first_block(kb) that holds its groups' input channels.
  int64_t span = p.groups == 1
                     ? blocks_in
                     : std::max<int64_t>(1, block / out_per_group) * in_per_group / in_block;
  auto first_block = [&](const ir::Expr& kb) -> ir::Expr {
    if (p.groups == 1) return ir::make_const(ir::DataType::Int(64), 0);
    return kb * block / out_per_group * in_per_group / in_block;
  };
  te::Tensor packed = te::compute(
      {blocks, span, r, s, in_block, block},
      [&](const std::vector<te::Var>& i) {
        ir::Expr oc = i[0] * block + i[5], ic = (first_block(i[0]) + i[1]) * in_block + i[4];
        // Grouped: the channel's index within the output channel's group (out of range:
        // another group's channel, a zero weight).
        ir::Expr in_group = p.groups == 1 ? ic : ic - oc / out_per_group * in_per_group;
        ir::Expr valid = oc < k && ic < c;
        if (p.groups > 1) valid = valid && in_group >= 0 && in_group < in_per_group;
        return ir::select(valid,
                          weight(ir::min(oc, k - 1),
                                 ir::min(ir::max(in_group, 0), in_per_group - 1), i[2], i[3]),
                          zero);
      },
      name + ".packed", {"kb", "cb", "ry", "rx", "ci", "kk"});
  te::IterVar rco = te::reduce_axis(span, "rco");
  std::vector<te::IterVar> reduce = {rco, ry, rx};
  te::IterVar rci;
  if (blocked) {
    rci = te::reduce_axis(in_block, "rci");
    reduce.push_back(rci);
  }
  return te::compute(
      out_shape,
      [&](te::Var b, te::Var kb, te::Var y, te::Var x, te::Var kk) {
        std::vector<ir::Expr> at = {b, first_block(kb) + rco.var,
                                    y * p.stride + ry.var * p.dilation,
                                    x * p.stride + rx.var * p.dilation};
        ir::Expr ci = ir::make_const(ir::DataType::Int(64), 0);
        if (blocked) {
          at.push_back(rci.var);
          ci = rci.var;
        }
        return te::sum(padded(at) * packed(kb, rco.var, ry.var, rx.var, ci, kk), reduce);
      },
      name, out_names);
}

bool grouped_conv_fits(int64_t groups, int64_t in_per_group, int64_t out_per_group,
                       int64_t in_block, int64_t block) {
  if (block % out_per_group == 0) {
    // Whole groups per block; the last block may hold padding channels past the last group,
    // as long as its run of input blocks stays within the input's.
    int64_t span_channels = block / out_per_group * in_per_group;
    int64_t blocks = (groups * out_per_group + block - 1) / block;
    int64_t blocks_in = (groups * in_per_group + in_block - 1) / in_block;
    return span_channels % in_block == 0 && blocks * (span_channels / in_block) <= blocks_in;
  }
  return out_per_group % block == 0 && in_per_group % in_block == 0;
}

bool conv_groups_in_lanes(int64_t groups, int64_t in_per_group, int64_t out_per_group,
                          int64_t in_block, int64_t block) {
  return groups > 1 && out_per_group < block && block % out_per_group == 0 &&
         block / out_per_group * in_per_group == in_block;
}

schedules::ConvChannels conv_channels(const Conv2dNchwcParams& p, int64_t in_channels,
                                      int64_t out_channels, int64_t in_block) {
  if (p.depthwise) return schedules::ConvChannels::Depthwise;
  if (in_block > 1 && conv_groups_in_lanes(p.groups, in_channels / p.groups,
                                           out_channels / p.groups, in_block, p.block))
    return schedules::ConvChannels::LaneGroups;
  return schedules::ConvChannels::Dense;
}

}  // namespace tessel::ops

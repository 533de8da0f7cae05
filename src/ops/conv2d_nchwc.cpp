// Conv2d in the blocked channel layout NCHW[x]c: compute (padding and weight-packing
// stages) and the direct CPU schedule.
#include "ops/conv2d_nchwc.h"

#include <algorithm>
#include <tuple>

#include "ops/conv2d.h"
#include "ops/op_util.h"
#include "ops/target_budget.h"
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
  if (conv_channels(p, c, k, in_block) != ConvChannels::Dense) {
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

int64_t default_conv_tile_kb(int64_t blocks, bool unshared_input, int64_t vectors, int64_t columns,
                             const target::Target& target) {
  if (unshared_input) return 1;
  int64_t best = 1;
  double best_rate = 0;
  for (int64_t t : {4, 2, 1}) {
    if (blocks % t != 0) continue;
    int64_t weights = t * vectors;
    int64_t width =
        std::min(columns, std::max<int64_t>(1, direct_conv_accumulators(target) / weights));
    double fmas_per_load =
        static_cast<double>(weights * width) / static_cast<double>(weights + width);
    if (fmas_per_load > best_rate) {
      best = t;
      best_rate = fmas_per_load;
    }
  }
  return best;
}

bool default_conv_pad_in_place(bool depthwise) {
  return depthwise;
}

int64_t widest_register_tile(int64_t vectors, const target::Target& target) {
  return std::max<int64_t>(1, blocked_conv_accumulators(target) / vectors);
}

TuningSpace conv2d_nchwc_tuning_space(const std::vector<int64_t>& output, int64_t vectors,
                                      int64_t in_block, ConvChannels channels, bool pointwise,
                                      bool padded, const target::Target& target) {
  TuningSpace space;
  bool lane_groups = channels != ConvChannels::Dense;
  space.template_name = channels == ConvChannels::Depthwise    ? "conv2d_nchwc_depthwise"
                        : channels == ConvChannels::LaneGroups ? "conv2d_nchwc_grouped"
                        : pointwise                            ? "conv2d_nchwc_1x1"
                                                               : "conv2d_nchwc";
  int64_t widest = widest_register_tile(vectors, target);
  std::vector<int64_t> tile_ow;
  for (int64_t t = 1; t <= std::min(widest, output[3]); ++t) tile_ow.push_back(t);
  space.knobs.push_back({"tile_ow", tile_ow});
  space.knobs.push_back({"tile_kb", values_up_to({1, 2, 4}, std::min(output[1], widest))});
  space.knobs.push_back({"tile_oh", values_up_to({1, 2, 4}, std::min(output[2], widest))});
  if (!lane_groups && !pointwise) space.knobs.push_back({"window_outer", {0, 1}});
  space.knobs.push_back({"parallel_rows", {1, 0}});
  if (!lane_groups && in_block > 1)
    space.knobs.push_back({"unroll_ci", values_up_to({1, 2, 4}, in_block)});
  if (padded) space.knobs.push_back({"pad_in_place", {0, 1}});
  return space;
}

ConvChannels conv_channels(const Conv2dNchwcParams& p, int64_t in_channels, int64_t out_channels,
                           int64_t in_block) {
  if (p.depthwise) return ConvChannels::Depthwise;
  if (in_block > 1 && conv_groups_in_lanes(p.groups, in_channels / p.groups,
                                           out_channels / p.groups, in_block, p.block))
    return ConvChannels::LaneGroups;
  return ConvChannels::Dense;
}

Conv2dNchwcConfig conv2d_nchwc_config(const KnobValues& knobs, const Conv2dNchwcParams& p) {
  Conv2dNchwcConfig config;
  config.pad_in_place = default_conv_pad_in_place(p.depthwise);
  config.tile_ow = knobs.get("tile_ow", config.tile_ow);
  config.tile_kb = knobs.get("tile_kb", config.tile_kb);
  config.tile_oh = knobs.get("tile_oh", config.tile_oh);
  config.window_outer = knobs.get("window_outer", config.window_outer) != 0;
  config.parallel_rows = knobs.get("parallel_rows", config.parallel_rows) != 0;
  config.unroll_ci = knobs.get("unroll_ci", config.unroll_ci);
  config.pad_in_place = knobs.get("pad_in_place", config.pad_in_place) != 0;
  return config;
}

namespace {

/// The vector width at which a groups-in-lanes convolution accumulates: a whole block, its
/// input permuted per lane (vpermilps within 128-bit lanes for groups of up to 4 channels),
/// or one group's output channels per vector when groups span 8 channels or more: each
/// input channel is then broadcast to its group's lanes, as the dense kernel does, without
/// the cross-lane permutations a whole block would need.
int64_t lane_group_vector(const te::Tensor& out, const te::Tensor& padded,
                          const te::Tensor& packed) {
  int64_t block = *ir::as_const_int(out.shape()[4]);
  if (packed.ndim() != 5) return block;  // depthwise: one channel per lane, read in place
  int64_t in_per_group = *ir::as_const_int(packed.shape()[3]);
  int64_t out_per_group = block * in_per_group / *ir::as_const_int(padded.shape()[4]);
  return out_per_group >= 8 ? out_per_group : block;
}

}  // namespace

void schedule_conv2d_nchwc_cpu(schedule::Schedule& s, const te::Tensor& out,
                               const target::Target& target, const te::Tensor& epilogue,
                               const Conv2dNchwcConfig& config) {
  const te::Tensor& padded = out.op()->inputs.at(0);
  const te::Tensor& packed = out.op()->inputs.at(1);
  // Groups in lanes (depthwise included): weights [kb, ry, rx, (j,) kk], each lane reducing
  // over its own group's channels of one input block.
  bool lane_groups = packed.ndim() != 6;
  // Grouped: each output block reduces over fewer input blocks than the data holds, and
  // output blocks side by side read different ones.
  bool grouped = lane_groups || (padded.ndim() == 5 && *ir::as_const_int(packed.shape()[1]) <
                                                           *ir::as_const_int(padded.shape()[1]));
  int64_t block = *ir::as_const_int(out.shape()[4]);
  int64_t vectors = std::max<int64_t>(1, block / target.float_lanes());
  te::Tensor acc = s.cache_write(out, "local");
  // With an epilogue, each tile goes from the registers through the epilogue to memory.
  // (Inlining rebuilds the epilogue's operation: it is named by its stage from here on.)
  std::string tiled = s.stage(out).name;
  if (epilogue.defined() && epilogue.op().get() != out.op().get()) {
    tiled = s.stage(epilogue).name;
    s.compute_inline(out);
  }
  std::vector<std::string> axes = s.stage(tiled).roots;  // n, kb, oh, ow, kk
  int64_t tile_kb = config.tile_kb > 0
                        ? config.tile_kb
                        : default_conv_tile_kb(*ir::as_const_int(out.shape()[1]), grouped, vectors,
                                               *ir::as_const_int(out.shape()[3]), target);
  int64_t tile_ow = config.tile_ow > 0 ? config.tile_ow
                                       : fitted_conv_tile_ow(*ir::as_const_int(out.shape()[3]),
                                                             vectors * tile_kb, target);
  auto [owo, owi] = s.split(tiled, axes[3], tile_ow);
  // The register tile: tile_kb channel blocks x tile_oh rows x tile_ow columns, inside the
  // loops over tiles (n, channel blocks, rows, column tiles).
  std::string kb_outer = axes[1], oh_outer = axes[2];
  std::vector<std::string> tile_loops;
  for (auto [loop, factor, outer] :
       {std::tuple{axes[1], tile_kb, &kb_outer}, std::tuple{axes[2], config.tile_oh, &oh_outer}}) {
    if (factor <= 1) continue;
    auto [o, i] = s.split(tiled, loop, factor);
    *outer = o;
    tile_loops.push_back(i);
  }
  if (!tile_loops.empty()) {
    std::vector<std::string> order = {kb_outer, oh_outer, owo};
    order.insert(order.end(), tile_loops.begin(), tile_loops.end());
    s.reorder(tiled, order);
    for (const std::string& loop : tile_loops) s.unroll(tiled, loop);
  }
  std::string outer = s.fuse(tiled, axes[0], kb_outer);
  if (config.parallel_rows) outer = s.fuse(tiled, outer, oh_outer);
  s.parallel(tiled, outer);
  s.unroll(tiled, owi);
  s.vectorize(tiled, axes[4]);

  s.compute_at(acc, tiled, owo);
  std::vector<std::string> order;
  std::string unrolled_ci;
  if (lane_groups) {
    order = {"ry", "rx"};
    if (packed.ndim() == 5) {
      order.push_back("rj");
      unrolled_ci = "rj";
    }
  } else if (config.window_outer) {
    order = {"ry", "rx", "rco"};
  } else {
    order = {"rco", "ry", "rx"};
  }
  if (!lane_groups && padded.ndim() == 5) {
    order.push_back("rci");
    if (config.unroll_ci > 1) {
      auto [rcio, rcii] = s.split(acc, "rci", config.unroll_ci);
      order.back() = rcio;
      order.push_back(rcii);
      unrolled_ci = rcii;
    }
  }
  order.insert(order.end(), {"n", "kb", "oh", "ow", "kk"});
  s.reorder(acc, order);
  if (!unrolled_ci.empty()) s.unroll(acc, unrolled_ci);
  if (tile_kb > 1) s.unroll(acc, "kb");
  if (config.tile_oh > 1) s.unroll(acc, "oh");
  s.unroll(acc, "ow");
  int64_t group_lanes = lane_groups ? lane_group_vector(out, padded, packed) : block;
  if (group_lanes < block) {
    auto [groups_in_block, lanes] = s.split(acc, "kk", group_lanes);
    s.unroll(acc, groups_in_block);
    s.vectorize(acc, lanes);
  } else {
    s.vectorize(acc, "kk");
  }

  if (!s.stage(padded).is_placeholder()) {
    if (config.pad_in_place) {
      s.compute_inline(padded);
    } else {
      // Blocked data is copied in vectors of a channel block, in parallel over the blocks;
      // NCHW data (a model's input) along its rows in vectors of the target's width, which
      // read plainly but at the rows' ends, in parallel over the rows.
      std::vector<std::string> pad_loops = s.stage(padded).leaves;
      std::string rows = s.fuse(padded, pad_loops[0], pad_loops[1]);
      if (padded.ndim() == 5) {
        s.vectorize(padded, pad_loops.back());
      } else {
        rows = s.fuse(padded, rows, pad_loops[2]);
        s.vectorize(padded, s.split(padded, pad_loops[3], target.float_lanes()).second);
      }
      s.parallel(padded, rows);
    }
  }
  // Packing, unless the compiler folded it (constant weights).
  if (!s.stage(packed).is_placeholder()) s.vectorize(packed, s.stage(packed).leaves.back());
}

}  // namespace tessel::ops

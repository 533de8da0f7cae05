// The direct CPU schedule of conv2d_nchwc() (see conv2d_nchwc.h).
#include "schedules/cpu/conv2d_nchwc.h"

#include <algorithm>
#include <string>
#include <tuple>

#include "schedules/cpu/conv2d.h"
#include "schedules/cpu/target_budget.h"
#include "support/error.h"

namespace tessel::schedules {

int64_t default_conv_tile_kb(int64_t blocks, bool unshared_input, int64_t vectors, int64_t columns,
                             const target::Target& target) {
  if (unshared_input) return 1;
  int64_t best = 1;
  double best_rate = 0;
  for (int64_t t : {4, 2, 1}) {
    if (blocks % t != 0) continue;
    int64_t weights = t * vectors;
    int64_t width = std::min(columns, register_tile_accumulators(target, weights) / weights);
    double fmas_per_load =
        static_cast<double>(weights * width) / static_cast<double>(weights + width);
    if (fmas_per_load > best_rate) {
      best = t;
      best_rate = fmas_per_load;
    }
  }
  return best;
}

ConvSpatialTile default_conv_spatial_tile(int64_t oh, int64_t ow, int64_t vectors,
                                          const target::Target& target) {
  int64_t positions = std::min<int64_t>(8, register_tile_accumulators(target, vectors) / vectors);
  ConvSpatialTile best;
  int64_t best_area = 0;
  for (int64_t rows : {1, 2}) {
    if (rows > oh) break;
    int64_t columns = std::clamp<int64_t>(positions / rows, 1, ow);
    int64_t area = (oh + rows - 1) / rows * rows * ((ow + columns - 1) / columns * columns);
    if (best_area == 0 || area < best_area) {
      best = {rows, columns};
      best_area = area;
    }
  }
  return best;
}

int64_t default_conv_unroll_ci(int64_t in_block) {
  return in_block % 4 == 0 ? 4 : 1;
}

bool default_conv_pad_in_place(double multiply_adds_per_input) {
  return multiply_adds_per_input < 256;
}

int64_t widest_register_tile(int64_t vectors, const target::Target& target) {
  return std::max<int64_t>(1, blocked_conv_accumulators(target) / vectors);
}

TuningSpace conv2d_nchwc_tuning_space(const std::vector<int64_t>& output, int64_t vectors,
                                      int64_t in_block, int64_t in_blocks, ConvChannels channels,
                                      bool pointwise, bool padded, const target::Target& target) {
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
  if (!lane_groups && in_block > 1) {
    space.knobs.push_back({"unroll_ci", values_up_to({1, 2, 4}, in_block)});
    std::vector<int64_t> tile_ci = {0};
    for (int64_t b : {4, 8, 16})
      if (b < in_blocks && in_blocks % b == 0) tile_ci.push_back(b);
    space.knobs.push_back({"tile_ci", tile_ci});
  }
  if (padded) space.knobs.push_back({"pad_in_place", {0, 1}});
  return space;
}

Conv2dNchwcConfig conv2d_nchwc_config(const KnobValues& knobs) {
  Conv2dNchwcConfig config;
  config.tile_ow = knobs.get("tile_ow", config.tile_ow);
  config.tile_kb = knobs.get("tile_kb", config.tile_kb);
  config.tile_oh = knobs.get("tile_oh", config.tile_oh);
  config.window_outer = knobs.flag("window_outer");
  config.parallel_rows = knobs.get("parallel_rows", config.parallel_rows) != 0;
  config.unroll_ci = knobs.get("unroll_ci", config.unroll_ci);
  config.tile_ci = knobs.get("tile_ci", config.tile_ci);
  config.pad_in_place = knobs.flag("pad_in_place");
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

/// The extent of the reduction axis `name` of the convolution `out`.
int64_t reduce_extent(const te::Tensor& out, const std::string& name) {
  for (const ir::IterVar& r : out.op()->reduce_axis)
    if (r.var->name == name) return *ir::as_const_int(r.extent);
  TESSEL_INTERNAL_ERROR("convolution ", out.op()->name, " has no reduction axis ", name);
}

/// Multiply-adds of the convolution `out` per element of its unpadded input `data`.
double multiply_adds_per_input(const te::Tensor& out, const te::Tensor& data) {
  double per_output = 1;
  for (const ir::IterVar& r : out.op()->reduce_axis)
    per_output *= static_cast<double>(*ir::as_const_int(r.extent));
  return per_output * static_cast<double>(te::shape_size(te::static_shape(out))) /
         static_cast<double>(te::shape_size(te::static_shape(data)));
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
  // A tile of groups in lanes loads its input as vectors, beside the weights: it keeps the
  // narrower tile of a direct convolution (fuller ones spill: the 5x5 depthwise layer ran
  // 1.15x oneDNN with 4 columns, 0.84x with 6).
  int64_t oh = *ir::as_const_int(out.shape()[2]), ow = *ir::as_const_int(out.shape()[3]);
  ConvSpatialTile fitted = lane_groups
                               ? ConvSpatialTile{1, fitted_conv_tile_ow(ow, vectors, target)}
                               : default_conv_spatial_tile(oh, ow, vectors * tile_kb, target);
  int64_t tile_ow = config.tile_ow > 0 ? config.tile_ow : fitted.columns;
  int64_t tile_oh = config.tile_oh > 0 ? config.tile_oh : fitted.rows;
  auto [owo, owi] = s.split(tiled, axes[3], tile_ow);
  // The register tile: tile_kb channel blocks x tile_oh rows x tile_ow columns, inside the
  // loops over tiles (n, channel blocks, rows, column tiles).
  std::string kb_outer = axes[1], oh_outer = axes[2];
  std::vector<std::string> tile_loops;
  for (auto [loop, factor, outer] :
       {std::tuple{axes[1], tile_kb, &kb_outer}, std::tuple{axes[2], tile_oh, &oh_outer}}) {
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

  // Reduction blocking (tile_ci): the tile's rows accumulate in a local buffer over blocks
  // of tile_ci input blocks, so that a block's weights stay in L1 while the column tiles
  // sweep over them; otherwise each register tile accumulates over all input channels.
  bool ci_blocked = !lane_groups && padded.ndim() == 5 && config.parallel_rows &&
                    config.tile_ci > 0 && config.tile_ci < reduce_extent(out, "rco");
  std::vector<std::string> order;
  std::string rco = "rco", oh_in_tile = "oh", ow_in_tile = "ow";
  if (ci_blocked) {
    s.compute_at(acc, tiled, outer);
    std::string rco_blocks, oh_tiles, ow_tiles;
    std::tie(rco_blocks, rco) = s.split(acc, "rco", config.tile_ci);
    std::tie(oh_tiles, oh_in_tile) = s.split(acc, "oh", tile_oh);
    std::tie(ow_tiles, ow_in_tile) = s.split(acc, "ow", tile_ow);
    order = {rco_blocks, oh_tiles, ow_tiles};
  } else {
    s.compute_at(acc, tiled, owo);
  }
  std::string unrolled_ci;
  if (lane_groups) {
    order.insert(order.end(), {"ry", "rx"});
    if (packed.ndim() == 5) {
      order.push_back("rj");
      unrolled_ci = "rj";
    }
  } else if (config.window_outer.value_or(padded.ndim() == 4)) {
    order.insert(order.end(), {"ry", "rx", rco});
  } else {
    order.insert(order.end(), {rco, "ry", "rx"});
  }
  if (!lane_groups && padded.ndim() == 5) {
    order.push_back("rci");
    int64_t unroll_ci = config.unroll_ci > 0
                            ? config.unroll_ci
                            : default_conv_unroll_ci(*ir::as_const_int(padded.shape()[4]));
    if (unroll_ci > 1) {
      auto [rcio, rcii] = s.split(acc, "rci", unroll_ci);
      order.back() = rcio;
      order.push_back(rcii);
      unrolled_ci = rcii;
    }
  }
  order.insert(order.end(), {"n", "kb", oh_in_tile, ow_in_tile, "kk"});
  s.reorder(acc, order);
  if (!unrolled_ci.empty()) s.unroll(acc, unrolled_ci);
  if (tile_kb > 1) s.unroll(acc, "kb");
  if (tile_oh > 1) s.unroll(acc, oh_in_tile);
  s.unroll(acc, ow_in_tile);
  int64_t group_lanes = lane_groups ? lane_group_vector(out, padded, packed) : block;
  if (group_lanes < block) {
    auto [groups_in_block, lanes] = s.split(acc, "kk", group_lanes);
    s.unroll(acc, groups_in_block);
    s.vectorize(acc, lanes);
  } else {
    s.vectorize(acc, "kk");
  }

  if (!s.stage(padded).is_placeholder()) {
    const te::Tensor& data = padded.op()->inputs.at(0);
    if (config.pad_in_place.value_or(
            default_conv_pad_in_place(multiply_adds_per_input(out, data)))) {
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

}  // namespace tessel::schedules

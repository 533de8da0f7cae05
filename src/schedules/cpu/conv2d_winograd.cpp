// The CPU schedule of the Winograd convolution (see conv2d_winograd.h): parallel transforms
// and register tiles of the products.
#include "schedules/cpu/conv2d_winograd.h"

#include <algorithm>
#include <string>
#include <vector>

#include "schedules/cpu/conv2d.h"
#include "schedules/cpu/conv2d_nchwc.h"
#include "schedules/cpu/target_budget.h"

namespace tessel::schedules {

TuningSpace conv2d_winograd_tuning_space(int64_t tiles, int64_t blocks, int64_t vectors,
                                         int64_t in_block, const target::Target& target) {
  TuningSpace space;
  space.template_name = "conv2d_nchwc_winograd";
  int64_t widest = widest_register_tile(vectors, target);
  std::vector<int64_t> tile_p;
  for (int64_t t = 1; t <= std::min(widest, tiles); ++t) tile_p.push_back(t);
  space.knobs.push_back({"tile_p", tile_p});
  space.knobs.push_back({"tile_kb", values_up_to({1, 2, 4}, std::min(blocks, widest))});
  if (in_block > 1) space.knobs.push_back({"unroll_ci", values_up_to({1, 2, 4}, in_block)});
  space.knobs.push_back({"prefetch", {0, 1}});
  return space;
}

Conv2dWinogradConfig conv2d_winograd_config(const KnobValues& knobs) {
  Conv2dWinogradConfig config;
  config.tile_p = knobs.get("tile_p", config.tile_p);
  config.tile_kb = knobs.get("tile_kb", config.tile_kb);
  config.unroll_ci = knobs.get("unroll_ci", config.unroll_ci);
  config.prefetch = knobs.flag("prefetch");
  return config;
}

void schedule_conv2d_winograd_cpu(schedule::Schedule& s, const te::Tensor& out,
                                  const target::Target& target, const te::Tensor& epilogue,
                                  const Conv2dWinogradConfig& config) {
  std::string base = s.stage(out).name;
  te::Tensor products = s.tensor(base + ".wino_gemm");
  te::Tensor input = s.tensor(base + ".wino_input");
  te::Tensor padded = s.tensor(base + ".wino_pad");
  // The transformed weights: the stage, or the constant the compiler folded it into.
  te::Tensor weights = products.op()->inputs.at(0).op().get() == input.op().get()
                           ? products.op()->inputs.at(1)
                           : products.op()->inputs.at(0);
  std::vector<int64_t> gemm_shape = te::static_shape(products);  // e, nu, kb, p, kk
  int64_t tile = gemm_shape[0] - 2;                              // alpha = m + 2
  int64_t blocks = gemm_shape[2], tiles = gemm_shape[3];
  int64_t vectors = std::max<int64_t>(1, gemm_shape[4] / target.float_lanes());

  // The output transform per m x m tile, through the epilogue.
  std::string tiled = base;
  if (epilogue.defined() && epilogue.op().get() != out.op().get()) {
    tiled = s.stage(epilogue).name;
    s.compute_inline(out);
  }
  std::vector<std::string> axes = s.stage(tiled).roots;  // n, kb, oh, ow, kk
  auto [oho, ohi] = s.split(tiled, axes[2], tile);
  auto [owo, owi] = s.split(tiled, axes[3], tile);
  s.reorder(tiled, {axes[0], axes[1], oho, owo, ohi, owi, axes[4]});
  s.parallel(tiled, s.fuse(tiled, s.fuse(tiled, axes[0], axes[1]), oho));
  s.unroll(tiled, ohi);
  s.unroll(tiled, owi);
  s.vectorize(tiled, axes[4]);

  // The products: register tiles of tile_kb blocks x tile_p tiles.
  te::Tensor acc = s.cache_write(products, "local");
  std::string gemm = s.stage(products).name;
  std::vector<std::string> loops = s.stage(gemm).roots;  // e, nu, kb, p, kk
  int64_t tile_kb = config.tile_kb > 0
                        ? config.tile_kb
                        : default_conv_tile_kb(blocks, false, vectors, tiles, target);
  int64_t tile_p =
      config.tile_p > 0 ? config.tile_p : fitted_conv_tile_ow(tiles, vectors * tile_kb, target);
  auto [po, pi] = s.split(gemm, loops[3], tile_p);
  std::string kb_outer = loops[2];
  if (tile_kb > 1) {
    auto [kbo, kbi] = s.split(gemm, loops[2], tile_kb);
    kb_outer = kbo;
    s.reorder(gemm, {loops[0], loops[1], kbo, po, kbi, pi, loops[4]});
    s.unroll(gemm, kbi);
  } else {
    s.reorder(gemm, {loops[0], loops[1], kb_outer, po, pi, loops[4]});
  }
  std::string points = s.fuse(gemm, s.fuse(gemm, loops[0], loops[1]), kb_outer);
  s.parallel(gemm, points);
  int64_t weight_bytes = weights.dtype().bytes();
  for (const ir::Expr& extent : weights.shape()) weight_bytes *= *ir::as_const_int(extent);
  if (config.prefetch.value_or(weight_bytes >= kPrefetchMinBytes))
    s.prefetch(gemm, points, weights);
  s.unroll(gemm, pi);
  s.vectorize(gemm, loops[4]);
  s.compute_at(acc, gemm, po);
  std::vector<std::string> acc_order = {"rc", "rci", "e", "nu", "kb", "p", "kk"};
  std::string unrolled_ci;
  if (config.unroll_ci > 1) {
    auto [rcio, rcii] = s.split(acc, "rci", config.unroll_ci);
    acc_order = {"rc", rcio, rcii, "e", "nu", "kb", "p", "kk"};
    unrolled_ci = rcii;
  }
  s.reorder(acc, acc_order);
  if (!unrolled_ci.empty()) s.unroll(acc, unrolled_ci);
  if (tile_kb > 1) s.unroll(acc, "kb");
  s.unroll(acc, "p");
  s.vectorize(acc, "kk");

  // The input transform per tile and input block, its alpha^2 values unrolled.
  std::vector<std::string> in_loops = s.stage(input).roots;  // e, nu, cb, p, ci
  s.reorder(input, {in_loops[3], in_loops[2], in_loops[0], in_loops[1], in_loops[4]});
  s.parallel(input, s.fuse(input, in_loops[3], in_loops[2]));
  s.unroll(input, in_loops[0]);
  s.unroll(input, in_loops[1]);
  s.vectorize(input, in_loops[4]);

  std::vector<std::string> pad_loops = s.stage(padded).leaves;
  s.parallel(padded, s.fuse(padded, pad_loops[0], pad_loops[1]));
  s.vectorize(padded, pad_loops.back());
  // The weight transform, unless the compiler folded it (constant weights).
  if (!s.stage(weights).is_placeholder()) s.vectorize(weights, s.stage(weights).leaves.back());
}

}  // namespace tessel::schedules

// The blocked CPU schedule of matmul(): register tiles over packed panels of B.
#include "schedules/cpu/matmul.h"

#include <algorithm>
#include <string>
#include <vector>

#include "schedules/cpu/target_budget.h"

namespace tessel::schedules {

MatmulConfig default_matmul_config(const target::Target& target) {
  MatmulConfig config;
  config.tile_m = 6;
  config.tile_n = matmul_default_panels(target);
  // Eight reduction steps per loop iteration: the loop's own instructions no longer share the
  // issue slots of each step's FMAs (BERT's and ViT's products 3-8 % faster with AVX-512,
  // 8-20 % with AVX2, against a loop of single steps).
  config.unroll_k = 8;
  return config;
}

TuningSpace matmul_tuning_space(int64_t rows, int64_t columns, int64_t k,
                                const target::Target& target) {
  // Accumulators of tile_m rows x two vectors, plus the two vectors of B, fit the registers.
  int64_t max_rows = matmul_max_rows(target);
  TuningSpace space{"matmul", {}};
  space.knobs.push_back(
      {"tile_m", values_up_to({1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14}, std::min(max_rows, rows))});
  // Two panels side by side: four vectors per row, for tiles of at most half the rows
  // (taller ones spill, and measure so).
  int64_t panel = matmul_panel(target);
  std::vector<int64_t> tile_n = {1};
  if (columns > panel) tile_n.push_back(2);
  space.knobs.push_back({"tile_n", tile_n});
  // Blocking K keeps a tile column's accumulators (rows x its vectors) on the stack: only
  // where they take at most 512 KiB.
  std::vector<int64_t> tile_k = {0};
  bool blockable = rows * panel * tile_n.back() * 4 <= 512 * 1024;
  for (int64_t b : {32, 64, 128, 256, 512})
    if (blockable && b < k) tile_k.push_back(b);
  space.knobs.push_back({"tile_k", tile_k});
  space.knobs.push_back({"unroll_k", values_up_to({1, 2, 4, 8}, k)});
  space.knobs.push_back({"rows_outer", {0, 1}});
  space.knobs.push_back({"pack_rows", {0, 1}});
  space.knobs.push_back({"prefetch", {0, 1}});
  return space;
}

MatmulConfig matmul_config(const KnobValues& knobs, const target::Target& target) {
  MatmulConfig config = default_matmul_config(target);
  config.tile_m = knobs.get("tile_m", config.tile_m);
  config.tile_n = knobs.get("tile_n", config.tile_n);
  config.tile_k = knobs.get("tile_k", config.tile_k);
  config.unroll_k = knobs.get("unroll_k", config.unroll_k);
  config.rows_outer = knobs.get("rows_outer", config.rows_outer) != 0;
  config.pack_rows = knobs.get("pack_rows", config.pack_rows) != 0;
  config.prefetch = knobs.flag("prefetch");
  return config;
}

void schedule_matmul_cpu(schedule::Schedule& s, const te::Tensor& c, const MatmulConfig& config) {
  const te::Tensor& packed = c.op()->inputs.at(1);
  int64_t panel = *ir::as_const_int(packed.shape()[2]);
  int64_t tile_n = std::min(config.tile_n, *ir::as_const_int(packed.shape()[0]));
  // A tile no taller than the product: a matrix-vector product (one row: a recurrent cell's
  // step, a classifier) would otherwise run every tile through the guarded edge path.
  int64_t tile_m = std::min(config.tile_m, *ir::as_const_int(c.shape()[0]));
  // By default, B is prefetched where it outgrows the L2 cache, so comes from memory
  // (kPrefetchMinBytes), and has column tiles enough to keep two threads busy without the
  // row tiles.
  int64_t column_tiles = (*ir::as_const_int(packed.shape()[0]) + tile_n - 1) / tile_n;
  int64_t packed_bytes = *ir::as_const_int(packed.shape()[0]) *
                         *ir::as_const_int(packed.shape()[1]) * panel * packed.dtype().bytes();
  bool prefetch = config.prefetch.value_or(packed_bytes >= kPrefetchMinBytes && column_tiles >= 4);
  te::Tensor acc = s.cache_write(c, "local");
  // A tile of several panels is worked panel by panel: vectors of one panel, the panels
  // unrolled. Returns the loops `loop` became, outer to inner.
  auto vectorize_panels = [&](const te::Tensor& t, const std::string& loop) {
    if (tile_n == 1) {
      s.vectorize(t, loop);
      return std::vector<std::string>{loop};
    }
    auto [of_tile, in_panel] = s.split(t, loop, panel);
    s.unroll(t, of_tile);
    s.vectorize(t, in_panel);
    return std::vector<std::string>{of_tile, in_panel};
  };
  if (config.pack_rows) {
    // The left operand's rows in tiles of tile_m, interleaved: [M/tile_m][K][tile_m], so
    // that a reduction step reads its tile_m elements from one cache line, not from
    // tile_m rows a row's length apart (which share cache sets when that length is a
    // multiple of 4 KiB).
    te::Tensor left = c.op()->inputs.at(0);
    te::Tensor packed_rows =
        s.cache_read(left, "global", {acc}, schedule::Layout{}.split(0, tile_m).reorder({0, 2, 1}));
    std::vector<std::string> loops = s.stage(packed_rows).leaves;
    if (config.parallel) s.parallel(packed_rows, loops.front());
    s.unroll(packed_rows, loops.back());
  }

  // The accumulator's loops, outer to inner: (k blocks, row tiles,) k, rows, columns.
  std::vector<std::string> order;
  std::string row_loop = "i";
  if (config.tile_k > 0) {
    // Cache blocking: a column panel's rows accumulate in a local buffer over blocks of
    // tile_k steps of K, so that the block of the packed panel (tile_k x panel) stays in L1
    // while the row tiles sweep over it; the panels run in parallel.
    auto [panel_loop, column] = s.split(c, "j", panel * tile_n);
    s.reorder(c, {panel_loop, "i", column});
    if (config.parallel) s.parallel(c, panel_loop);
    vectorize_panels(c, column);
    s.compute_at(acc, c, panel_loop);
    if (prefetch) s.prefetch(c, panel_loop, packed);
    auto [ko, ki] = s.split(acc, "k", config.tile_k);
    auto [io, ii] = s.split(acc, "i", tile_m);
    order = {ko, io, ki};
    row_loop = ii;
  } else {
    // Tiles of tile_m x panel, each accumulated in registers over the whole K; column
    // panels outermost (unless rows_outer) so that one packed panel serves a column of tiles.
    schedule::TileLoops t = s.tile(c, "i", "j", tile_m, panel * tile_n);
    if (config.rows_outer)
      s.reorder(c, {t.x_outer, t.y_outer, t.x_inner, t.y_inner});
    else
      s.reorder(c, {t.y_outer, t.x_outer, t.x_inner, t.y_inner});
    // One parallel loop over all tiles; with prefetch, the outer tile loop is the parallel
    // one and the inner holds the tile, so that a panel's next one can be prefetched.
    const std::string& outer = config.rows_outer ? t.x_outer : t.y_outer;
    const std::string& inner = config.rows_outer ? t.y_outer : t.x_outer;
    std::string parallel_loop = prefetch ? outer : s.fuse(c, outer, inner);
    std::string tile_loop = prefetch ? inner : parallel_loop;
    if (config.parallel) s.parallel(c, parallel_loop);
    vectorize_panels(c, t.y_inner);
    s.compute_at(acc, c, tile_loop);
    if (prefetch) s.prefetch(c, t.y_outer, packed);
    order = {"k"};
  }
  std::string unrolled_k;
  // Unrolled by at most the reduction's length (and the block's, when K is blocked).
  int64_t reduction = *ir::as_const_int(c.op()->reduce_axis.at(0).extent);
  int64_t unroll_k = std::min(config.unroll_k, config.tile_k > 0 ? config.tile_k : reduction);
  if (unroll_k > 1) {
    auto [kio, kii] = s.split(acc, order.back(), unroll_k);
    order.back() = kio;
    order.push_back(kii);
    unrolled_k = kii;
  }
  // Each row's broadcast element meets the vectors of every panel of the tile.
  order.push_back(row_loop);
  for (const std::string& loop : vectorize_panels(acc, "j")) order.push_back(loop);
  s.reorder(acc, order);
  if (!unrolled_k.empty()) s.unroll(acc, unrolled_k);
  s.unroll(acc, row_loop);

  // Packing, unless the compiler folded it (a constant right operand): one panel per
  // parallel iteration, contiguous rows vectorized.
  if (s.stage(packed).is_placeholder()) return;
  std::vector<std::string> pack_loops = s.stage(packed).leaves;
  if (config.parallel) s.parallel(packed, pack_loops.front());
  s.vectorize(packed, pack_loops.back());
}

}  // namespace tessel::schedules

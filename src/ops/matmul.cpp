// Matmul compute and its blocked CPU schedule.
#include "ops/matmul.h"

#include "ops/cpu_features.h"
#include "support/error.h"

namespace tessel::ops {

te::Tensor matmul(const te::Tensor& a, const te::Tensor& b, const std::string& name) {
  if (a.ndim() != 2 || b.ndim() != 2)
    TESSEL_USER_ERROR("matmul '", name, "': operands must be 2-d, got ", a.ndim(), "-d '",
                      a.name(), "' and ", b.ndim(), "-d '", b.name(), "'");
  const ir::Expr& k_extent = a.shape()[1];
  te::IterVar k = te::reduce_axis(k_extent, "k");
  return te::compute(
      {a.shape()[0], b.shape()[1]},
      [&](te::Var i, te::Var j) { return te::sum(a(i, k.var) * b(k.var, j), {k}); }, name,
      {"i", "j"});
}

MatmulConfig default_matmul_config() {
  MatmulConfig config;
  int lanes = host_float_lanes();
  // Two vectors per row: 8 rows fill half of AVX-512's 32 registers, 6 rows 12 of AVX2's 16.
  config.tile_n = 2 * lanes;
  config.tile_m = lanes >= 16 ? 8 : 6;
  return config;
}

void schedule_matmul_cpu(schedule::Schedule& s, const te::Tensor& c, const MatmulConfig& config) {
  const te::Tensor& b = c.op()->inputs.at(1);
  schedule::Layout panels = schedule::Layout{}.split(1, config.tile_n).reorder({1, 0, 2});
  te::Tensor packed = s.cache_read(b, "global", {c}, panels);
  te::Tensor acc = s.cache_write(c, "local");

  // The output: tiles of tile_m x tile_n, column panels outermost so one packed panel
  // serves a whole column of tiles.
  schedule::TileLoops t = s.tile(c, "i", "j", config.tile_m, config.tile_n);
  s.reorder(c, {t.y_outer, t.x_outer, t.x_inner, t.y_inner});
  std::string tile_loop = s.fuse(c, t.y_outer, t.x_outer);
  if (config.parallel) s.parallel(c, tile_loop);
  s.vectorize(c, t.y_inner);

  // The accumulator tile, computed per output tile: k outermost, rows unrolled, columns
  // vectorized, so the tile stays in vector registers.
  s.compute_at(acc, c, tile_loop);
  if (config.tile_k > 0) {
    auto [ko, ki] = s.split(acc, "k", config.tile_k);
    s.reorder(acc, {ko, ki, "i", "j"});
  } else {
    s.reorder(acc, {"k", "i", "j"});
  }
  s.unroll(acc, "i");
  s.vectorize(acc, "j");

  // Packing: one panel per parallel iteration, contiguous rows vectorized.
  std::vector<std::string> pack_loops = s.stage(packed).leaves;
  if (config.parallel) s.parallel(packed, pack_loops.front());
  s.vectorize(packed, pack_loops.back());
}

}  // namespace tessel::ops

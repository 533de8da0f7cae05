// Matmul compute and its blocked CPU schedule.
#include "ops/matmul.h"

#include "ops/cpu_features.h"
#include "support/error.h"

namespace tessel::ops {

te::Tensor matmul(const te::Tensor& a, const te::Tensor& b, const std::string& name,
                  int64_t panel) {
  if (a.ndim() < 2 || b.ndim() != 2)
    TESSEL_USER_ERROR("matmul '", name, "': the left operand must be at least 2-d and the right "
                      "one 2-d, got ", a.ndim(), "-d '", a.name(), "' and ", b.ndim(), "-d '",
                      b.name(), "'");
  const int64_t* n_extent = ir::as_const_int(b.shape()[1]);
  if (!n_extent) TESSEL_USER_ERROR("matmul '", name, "': the columns of '", b.name(), "' must be a constant");
  int64_t n = *n_extent;
  if (panel <= 0) panel = 2 * host_float_lanes();
  int64_t panels = (n + panel - 1) / panel;
  const ir::Expr& k_extent = b.shape()[0];
  te::Tensor packed = te::compute(
      {panels, k_extent, panel},
      [&](te::Var p, te::Var kk, te::Var jj) {
        ir::Expr j = p * panel + jj;
        return ir::select(j < n, b(kk, ir::min(j, n - 1)), ir::make_const(b.dtype(), 0));
      },
      name + ".packed", {"p", "k", "jj"});

  size_t batch = static_cast<size_t>(a.ndim()) - 2;
  te::IterVar k = te::reduce_axis(k_extent, "k");
  std::vector<ir::Expr> shape(a.shape().begin(), a.shape().end() - 1);
  shape.push_back(b.shape()[1]);
  std::vector<std::string> names;
  for (size_t d = 0; d < batch; ++d) names.push_back("b" + std::to_string(d));
  names.insert(names.end(), {"i", "j"});
  return te::compute(
      shape,
      [&](const std::vector<te::Var>& index) {
        std::vector<ir::Expr> at(index.begin(), index.end() - 1);
        at.push_back(k.var);
        ir::Expr j = index.back();
        return te::sum(a(at) * packed(j / panel, k.var, j % panel), {k});
      },
      name, names);
}

MatmulConfig default_matmul_config() {
  MatmulConfig config;
  // 8 rows of two vectors fill half of AVX-512's 32 registers, 6 rows 12 of AVX2's 16.
  config.tile_m = host_float_lanes() >= 16 ? 8 : 6;
  return config;
}

void schedule_matmul_cpu(schedule::Schedule& s, const te::Tensor& c, const MatmulConfig& config) {
  const te::Tensor& packed = c.op()->inputs.at(1);
  int64_t panel = *ir::as_const_int(packed.shape()[2]);
  te::Tensor acc = s.cache_write(c, "local");

  // The output: tiles of tile_m x tile_n, column panels outermost so one packed panel
  // serves a whole column of tiles; the batch of a batched left operand outside of them.
  schedule::TileLoops t = s.tile(c, "i", "j", config.tile_m, panel);
  std::vector<std::string> order;
  for (int d = 0; d + 2 < c.ndim(); ++d) order.push_back("b" + std::to_string(d));
  order.insert(order.end(), {t.y_outer, t.x_outer, t.x_inner, t.y_inner});
  s.reorder(c, order);
  std::string tile_loop = s.fuse(c, t.y_outer, t.x_outer);
  for (int d = c.ndim() - 3; d >= 0; --d) tile_loop = s.fuse(c, "b" + std::to_string(d), tile_loop);
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

  // Packing, unless the compiler folded it (a constant right operand): one panel per
  // parallel iteration, contiguous rows vectorized.
  if (s.stage(packed).is_placeholder()) return;
  std::vector<std::string> pack_loops = s.stage(packed).leaves;
  if (config.parallel) s.parallel(packed, pack_loops.front());
  s.vectorize(packed, pack_loops.back());
}

}  // namespace tessel::ops

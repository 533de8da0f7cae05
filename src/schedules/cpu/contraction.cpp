// The default CPU schedule of contraction stages (see contraction.h).
#include "schedules/cpu/contraction.h"

#include <algorithm>

#include "support/error.h"

namespace tessel::schedules {
namespace {

/// Contractions doing at least this many multiply-adds get a parallel outer loop.
constexpr int64_t kParallelMinWork = int64_t{1} << 16;

int64_t const_extent(const ir::Expr& extent) {
  const int64_t* value = ir::as_const_int(extent);
  TESSEL_ICHECK(value != nullptr, "a contraction loop has a non-constant extent");
  return *value;
}

/// The vector width of a contraction whose innermost axis has `innermost` elements: the
/// target's, or a narrower power of two that spans a shorter axis (the channels of a block
/// of 8 under AVX-512).
int64_t contraction_lanes(int64_t innermost, const target::Target& target) {
  int64_t lanes = target.float_lanes();
  if (innermost < lanes && innermost >= 4 && (innermost & (innermost - 1)) == 0) return innermost;
  return lanes;
}

}  // namespace

TuningSpace contraction_tuning_space(const std::string& template_name,
                                     const std::vector<int64_t>& output_shape,
                                     const target::Target& target) {
  if (output_shape.empty()) return {};
  int64_t lanes = contraction_lanes(output_shape.back(), target);
  if (output_shape.back() < lanes) return {};
  TuningSpace space{template_name, {}};
  int64_t rows = output_shape.size() >= 2 ? output_shape[output_shape.size() - 2] : 1;
  space.knobs.push_back({"tile_rows", values_up_to({1, 2, 3, 4, 6, 8}, rows)});
  space.knobs.push_back({"tile_vectors", values_up_to({1, 2, 3, 4}, output_shape.back() / lanes)});
  return space;
}

ContractionConfig contraction_config(const KnobValues& knobs) {
  ContractionConfig config;
  config.tile_rows = knobs.get("tile_rows", config.tile_rows);
  config.tile_vectors = knobs.get("tile_vectors", config.tile_vectors);
  return config;
}

void schedule_contraction(schedule::Schedule& s, const te::Tensor& tensor,
                          const target::Target& target, const ContractionConfig& config) {
  const schedule::Stage& stage = s.stage(tensor);
  if (stage.is_transformed() || stage.is_placeholder()) return;
  const te::OperationNode& op = *stage.op;
  size_t spatial = op.axis.size();
  if (spatial == 0) return;
  int64_t work = 1, innermost = const_extent(op.axis.back().extent);
  for (const ir::IterVar& iv : op.axis) work *= const_extent(iv.extent);
  for (const ir::IterVar& iv : op.reduce_axis) work *= const_extent(iv.extent);
  std::vector<std::string> roots = stage.roots;
  const auto* reduce = op.bodies[0].as<ir::ReduceNode>();
  int64_t lanes = contraction_lanes(innermost, target);
  bool unconditional = reduce && (!reduce->condition.defined() || ir::is_one(reduce->condition));
  bool vectorize = unconditional && tensor.dtype() == ir::DataType::Float(32) && innermost >= lanes;
  std::string outer = roots[0];
  if (vectorize) {
    // A register tile of outputs -- up to 4 rows of the next-to-last axis x 2 vectors of
    // the innermost one, 8 independent accumulators -- accumulates over the whole reduction.
    int64_t cols = config.tile_vectors > 0  ? config.tile_vectors * lanes
                   : innermost >= 2 * lanes ? 2 * lanes
                                            : lanes;
    int64_t next_extent = spatial >= 2 ? const_extent(op.axis[spatial - 2].extent) : 1;
    int64_t rows = config.tile_rows > 0 ? std::min(config.tile_rows, next_extent)
                   : next_extent >= 4   ? 4
                                        : 1;
    te::Tensor acc = s.cache_write(tensor, "local");
    auto [col_outer, col_inner] = s.split(tensor, roots[spatial - 1], cols);
    std::vector<std::string> tiles(roots.begin(),
                                   roots.begin() + static_cast<int64_t>(spatial) - 1);
    std::string row_inner;
    if (rows > 1) {
      auto [row_outer, inner] = s.split(tensor, roots[spatial - 2], rows);
      tiles.back() = row_outer;
      row_inner = inner;
    }
    tiles.push_back(col_outer);
    std::vector<std::string> order = tiles;
    if (rows > 1) order.push_back(row_inner);
    order.push_back(col_inner);
    s.reorder(tensor, order);
    // Columns that the tile does not divide (197 of a [12, 197, 197] attention product)
    // keep their tile loop out of the fused parallel loop, so that loop_partition peels the
    // last column tile off with constant extents (registers and a short vector) instead of
    // versioning every tile on a guard whose edge branch runs scalar through memory.
    bool ragged_columns = innermost % cols != 0 && tiles.size() > 1;
    size_t fused = ragged_columns ? tiles.size() - 1 : tiles.size();
    outer = tiles[0];
    for (size_t d = 1; d < fused; ++d) outer = s.fuse(tensor, outer, tiles[d]);
    if (rows > 1) s.unroll(tensor, row_inner);
    s.vectorize(tensor, col_inner);
    s.compute_at(acc, tensor, ragged_columns ? tiles.back() : outer);
    std::vector<std::string> acc_order(roots.begin() + static_cast<int64_t>(spatial), roots.end());
    if (rows > 1) acc_order.push_back(roots[spatial - 2]);
    acc_order.push_back(roots[spatial - 1]);
    s.reorder(acc, acc_order);
    if (rows > 1) s.unroll(acc, roots[spatial - 2]);
    s.vectorize(acc, roots[spatial - 1]);
  } else {
    for (size_t d = 1; d < spatial; ++d) outer = s.fuse(tensor, outer, roots[d]);
  }
  if (work >= kParallelMinWork) s.parallel(tensor, outer);
}

}  // namespace tessel::schedules

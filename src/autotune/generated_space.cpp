// Schedules generated from the compute alone (see generated_space.h).
#include "autotune/generated_space.h"

#include <algorithm>
#include <set>

#include "schedules/cpu/generic.h"
#include "schedules/cpu/lane_reduction.h"
#include "schedules/stage_util.h"
#include "support/error.h"

namespace tessel::autotune {
namespace {

using schedule::Schedule;
using schedule::Stage;
using schedules::extent_of;
using schedules::factor_over_lanes;
using schedules::factorable_over_lanes;
using schedules::is_float32;
using schedules::kParallelMinElements;
using schedules::reduction_roots;
using schedules::spatial_roots;
using schedules::unconditional_reduction;
using schedules::values_up_to;

int64_t elements_of(const te::OperationNode& op) {
  int64_t n = 1;
  for (const ir::IterVar& iv : op.axis) n *= extent_of(iv);
  return n;
}

/// Vectorizes the innermost loop of an element-wise float32 stage at least a vector long.
void vectorize_innermost(Schedule& s, const std::string& stage, int64_t lanes) {
  const Stage& st = s.stage(stage);
  if (st.op->has_reduction() || !is_float32(*st.op) || st.op->axis.empty() ||
      extent_of(st.op->axis.back()) < lanes)
    return;
  s.vectorize(stage, s.split(stage, st.leaves.back(), lanes).second);
}

/// Whether `a` and `b` have the same number of elements and the same two innermost extents:
/// a tile of one is a tile of the other (reshapes of leading dimensions aside).
bool same_tiles(const te::OperationNode& a, const te::OperationNode& b) {
  size_t na = a.axis.size(), nb = b.axis.size();
  if (na == 0 || nb == 0 || elements_of(a) != elements_of(b)) return false;
  if (extent_of(a.axis[na - 1]) != extent_of(b.axis[nb - 1])) return false;
  int64_t rows_a = na >= 2 ? extent_of(a.axis[na - 2]) : 1;
  int64_t rows_b = nb >= 2 ? extent_of(b.axis[nb - 2]) : 1;
  return rows_a == rows_b;
}

/// The stages that read `stage`: directly, or through stages inlined into them.
std::vector<std::string> readers_of(const Schedule& s, const Stage& stage) {
  std::vector<std::string> readers;
  for (const Stage& other : s.stages()) {
    bool reads = false;
    for (const te::Tensor& input : other.op->inputs)
      reads |= s.stage_of(input.op().get()) == &stage;
    if (!reads) continue;
    if (other.attach != schedule::AttachKind::Inline) {
      if (std::find(readers.begin(), readers.end(), other.name) == readers.end())
        readers.push_back(other.name);
      continue;
    }
    for (const std::string& reader : readers_of(s, other))
      if (std::find(readers.begin(), readers.end(), reader) == readers.end())
        readers.push_back(reader);
  }
  return readers;
}

/// Where the tile rule put an output's loops.
struct OutputLoops {
  std::string rows;  ///< per row tile: the loop other stages attach to
  std::string tile;  ///< per register tile: the loop the fed reduction attaches to
};

/// The register tile of the reduction `reduction` computed in each tile of the output: its
/// reduction loops outermost, the innermost unrolled by `unroll_k`, then the tile's axes,
/// unrolled (those the output tiles, matched from the innermost), the innermost in vectors.
void schedule_tile_reduction(Schedule& s, const std::string& reduction,
                             const std::vector<int64_t>& tiles, bool vector, int64_t unroll_k,
                             int64_t lanes) {
  const Stage& st = s.stage(reduction);
  std::vector<std::string> spatial = spatial_roots(st), reduce = reduction_roots(st);
  std::string unrolled_k;
  if (unroll_k > 1) {
    auto [outer, inner] = s.split(reduction, reduce.back(), unroll_k);
    reduce.back() = outer;
    reduce.push_back(inner);
    unrolled_k = inner;
  }
  std::vector<std::string> order = reduce;
  order.insert(order.end(), spatial.begin(), spatial.end());
  s.reorder(reduction, order);
  if (!unrolled_k.empty()) s.unroll(reduction, unrolled_k);
  for (size_t e = 1; e < spatial.size() && e < tiles.size(); ++e)
    if (tiles[tiles.size() - 1 - e] > 1) s.unroll(reduction, spatial[spatial.size() - 1 - e]);
  if (!vector) return;
  if (tiles.back() > lanes) {
    auto [of_tile, in_vector] = s.split(reduction, spatial.back(), lanes);
    s.unroll(reduction, of_tile);
    s.vectorize(reduction, in_vector);
  } else {
    s.vectorize(reduction, spatial.back());
  }
}

/// The tile rule for `output` (see the header); `reduction` (possibly the output itself, or
/// empty) is the reduction computed in its tiles. Knob names start with `prefix`.
OutputLoops tile_output(Schedule& s, const te::Tensor& output, const std::string& reduction,
                        GeneratedKnobs& knobs, const std::string& prefix, int64_t lanes) {
  const Stage& st = s.stage(output);
  const std::string name = st.name;
  const te::OperationNode& op = *st.op;
  std::vector<std::string> spatial = spatial_roots(st), reduce = reduction_roots(st);
  size_t n = spatial.size();
  if (n == 0) return {};
  bool reduces_here = reduction == name;
  const te::OperationNode* fed = reduction.empty() ? nullptr : s.stage(reduction).op.get();
  int64_t ext_j = extent_of(op.axis.back());
  bool vector = is_float32(op) && ext_j >= lanes &&
                (!fed || (is_float32(*fed) && unconditional_reduction(*fed)));
  // The tile's extent along each axis: the innermost in vectors (whole when not
  // vectorized), the next rows, the outer ones (around a vectorized reduction) 1, 2 or 4.
  std::vector<int64_t> tiles(n, 1);
  tiles[n - 1] = ext_j;
  if (vector) {
    std::vector<int64_t> widths = fed ? std::vector<int64_t>{2 * lanes, lanes, 3 * lanes, 4 * lanes}
                                      : std::vector<int64_t>{lanes, 2 * lanes, 4 * lanes};
    tiles[n - 1] = knobs.choose(prefix + "tile_j", values_up_to(widths, ext_j));
  }
  if (n >= 2) {
    std::vector<int64_t> rows =
        fed && vector ? std::vector<int64_t>{4, 1, 2, 6, 8} : std::vector<int64_t>{1, 2, 4};
    tiles[n - 2] = knobs.choose(prefix + "tile_i", values_up_to(rows, extent_of(op.axis[n - 2])));
  }
  for (size_t d = 0; d + 2 < n && fed && vector; ++d)
    tiles[d] = knobs.choose(prefix + "tile_a" + std::to_string(d),
                            values_up_to({1, 2, 4}, extent_of(op.axis[d])));
  int64_t unroll_k =
      fed ? knobs.choose(prefix + "unroll_k",
                         values_up_to({1, 2, 4, 8}, extent_of(fed->reduce_axis.back())))
          : 1;
  bool parallel_tiles = n >= 2 && knobs.choose(prefix + "parallel_tiles", {0, 1}) != 0;

  // Tile loops outside, (the output's own reduction,) the register tile inside.
  std::vector<std::string> outer, inner;
  for (size_t d = 0; d < n; ++d) {
    if (tiles[d] == 1) {
      outer.push_back(spatial[d]);
      continue;
    }
    auto [o, i] = s.split(name, spatial[d], tiles[d]);
    outer.push_back(o);
    inner.push_back(i);
  }
  std::vector<std::string> order = outer;
  if (reduces_here) order.insert(order.end(), reduce.begin(), reduce.end());
  order.insert(order.end(), inner.begin(), inner.end());
  s.reorder(name, order);
  OutputLoops loops;
  loops.rows = outer[0];
  for (size_t d = 1; d + 1 < n; ++d) loops.rows = s.fuse(name, loops.rows, outer[d]);
  loops.tile = n >= 2 ? outer[n - 1] : loops.rows;
  if (n >= 2 && parallel_tiles) loops.rows = loops.tile = s.fuse(name, loops.rows, outer[n - 1]);
  bool innermost_tiled = tiles[n - 1] > 1;
  for (size_t k = 0; k + (innermost_tiled ? 1 : 0) < inner.size(); ++k) s.unroll(name, inner[k]);
  if (vector) {
    if (tiles[n - 1] > lanes) {
      auto [of_tile, in_vector] = s.split(name, inner.back(), lanes);
      s.unroll(name, of_tile);
      s.vectorize(name, in_vector);
    } else {
      s.vectorize(name, inner.back());
    }
  }
  int64_t work = elements_of(op);
  for (const ir::IterVar& iv : (fed ? fed : &op)->reduce_axis) work *= extent_of(iv);
  if (work >= kParallelMinElements) s.parallel(name, loops.rows);
  if (fed && !reduces_here) {
    s.compute_at(reduction, name, loops.tile);
    schedule_tile_reduction(s, reduction, tiles, vector, unroll_k, lanes);
  }
  return loops;
}

/// A stage other than the output's: computed per row tile of `output` -- where every stage
/// reading it runs inside that loop too (`inside_rows`, which it then joins) -- or at the
/// root; its reduction factored over lanes where that pays; its innermost loop vectorized.
void schedule_other_stage(Schedule& s, const std::string& stage, const te::Tensor* output,
                          const OutputLoops& loops, std::set<std::string>& inside_rows,
                          GeneratedKnobs& knobs, int64_t lanes) {
  const te::OperationNode& op = *s.stage(stage).op;
  bool factor = factorable_over_lanes(op, lanes) && knobs.choose(stage + ".rfactor", {1, 0}) != 0;
  std::string partial = factor ? factor_over_lanes(s, stage, lanes) : "";
  bool at_rows = false;
  if (output && !loops.rows.empty()) {
    bool readers_inside = true;
    for (const std::string& reader : readers_of(s, s.stage(stage)))
      readers_inside &= reader == partial || inside_rows.count(reader) > 0;
    // Row-aligned stages (the output's leading extent) default to the row tile.
    const te::OperationNode& out = *s.stage(*output).op;
    bool aligned = !op.axis.empty() && extent_of(op.axis[0]) == extent_of(out.axis[0]);
    at_rows =
        readers_inside && knobs.choose(stage + ".at", aligned ? std::vector<int64_t>{1, 0}
                                                              : std::vector<int64_t>{0, 1}) != 0;
  }
  // Vectorized first: a one-dimensional stage at the root then runs its vectors in parallel.
  vectorize_innermost(s, stage, lanes);
  const std::string output_stage = output ? s.stage(*output).name : "";
  if (at_rows) {
    s.compute_at(stage, output_stage, loops.rows);
    inside_rows.insert(stage);
    if (factor) {
      s.compute_at(partial, output_stage, loops.rows);
      inside_rows.insert(partial);
    }
  } else {
    const Stage& st = s.stage(stage);
    if (!st.op->axis.empty() && elements_of(*st.op) >= kParallelMinElements)
      s.parallel(stage, st.leaves.front());
    if (factor && !s.stage(stage).op->axis.empty())
      s.compute_at(partial, stage, s.stage(stage).leaves.front());
  }
}

}  // namespace

int64_t GeneratedKnobs::choose(const std::string& name, const std::vector<int64_t>& values) {
  TESSEL_ICHECK(!values.empty(), "generated knob '", name, "' has no candidate values");
  if (values.size() > 1 && !chosen_) space_.knobs.push_back({name, values});
  return chosen_ ? chosen_->get(name, values.front()) : values.front();
}

void schedule_generated(Schedule& s, GeneratedKnobs& knobs, const target::Target& target) {
  const int64_t lanes = target.float_lanes();
  // Element-wise intermediates: inlined or kept.
  std::vector<std::string> kept;
  for (const Stage& stage : std::vector<Stage>(s.stages())) {
    if (stage.is_placeholder() || stage.is_output || stage.attach != schedule::AttachKind::Root)
      continue;
    bool inlinable = !stage.op->has_reduction() && stage.op->num_outputs() == 1;
    // Inlined by default where it has one reader (nothing is computed twice).
    std::vector<int64_t> inline_values = readers_of(s, s.stage(stage.name)).size() == 1
                                             ? std::vector<int64_t>{1, 0}
                                             : std::vector<int64_t>{0, 1};
    if (inlinable && knobs.choose(stage.name + ".inline", inline_values) != 0)
      s.compute_inline(stage.name);
    else
      kept.push_back(stage.name);
  }

  if (s.outputs().size() != 1) {
    knobs.space().template_name = "auto.multi_output";
    for (const te::Tensor& output : s.outputs()) {
      const Stage& st = s.stage(output);
      if (st.is_placeholder() || st.is_transformed()) continue;
      tile_output(s, output, st.op->has_reduction() ? st.name : "", knobs, st.name + ".", lanes);
    }
    std::set<std::string> none;
    for (auto k = kept.rbegin(); k != kept.rend(); ++k)
      schedule_other_stage(s, *k, nullptr, {}, none, knobs, lanes);
    return;
  }

  const te::Tensor output = s.outputs()[0];
  const Stage& out = s.stage(output);
  if (out.is_placeholder()) return;
  std::string reduction;
  if (out.op->has_reduction()) {
    // The output's own reduction: accumulated in a local tile, or in place.
    bool vectorizable =
        is_float32(*out.op) && !out.op->axis.empty() && extent_of(out.op->axis.back()) >= lanes;
    if (vectorizable && knobs.choose("cache_write", {1, 0}) != 0)
      reduction = s.stage(s.cache_write(output, "local")).name;
    else
      reduction = out.name;
  } else {
    // A reduction tiled like the output and read only by it: the output's element-wise
    // epilogue fuses into its tile.
    for (const std::string& stage : kept) {
      const Stage& st = s.stage(stage);
      if (!st.op->has_reduction() || st.op->num_outputs() != 1 || !same_tiles(*st.op, *out.op))
        continue;
      if (readers_of(s, st) == std::vector<std::string>{out.name} &&
          knobs.choose("fuse_reduction", {1, 0}) != 0) {
        reduction = stage;
        kept.erase(std::find(kept.begin(), kept.end(), stage));
        break;
      }
    }
  }
  bool row_reduction = !reduction.empty() && factorable_over_lanes(*s.stage(reduction).op, lanes) &&
                       knobs.choose("rfactor", {1, 0}) != 0;
  std::string partial = row_reduction ? factor_over_lanes(s, reduction, lanes) : "";
  OutputLoops loops = tile_output(s, output, reduction, knobs, "", lanes);
  const std::string output_stage = s.stage(output).name;
  std::set<std::string> inside_rows = {output_stage};
  if (!reduction.empty()) inside_rows.insert(reduction);
  if (!partial.empty() && !loops.rows.empty()) {
    s.compute_at(partial, output_stage, loops.rows);
    inside_rows.insert(partial);
  }
  // Readers before the stages they read: a stage joins the row tile only after its readers.
  bool row_statistics = row_reduction;
  for (auto k = kept.rbegin(); k != kept.rend(); ++k) {
    row_statistics |= s.stage(*k).op->has_reduction();
    schedule_other_stage(s, *k, &output, loops, inside_rows, knobs, lanes);
  }
  knobs.space().template_name = row_statistics      ? "auto.row_reduction"
                                : reduction.empty() ? "auto.injective"
                                                    : "auto.tiled_reduction";
}

std::shared_ptr<schedule::Schedule> generated_schedule(const compiler::GroupScheduler& scheduler,
                                                       const schedules::KnobValues& knobs) {
  std::shared_ptr<schedule::Schedule> result = scheduler.inlined_chain();
  GeneratedKnobs chosen(knobs);
  schedule_generated(*result, chosen, scheduler.target());
  return result;
}

schedules::TuningSpace generated_space(const compiler::GroupScheduler& scheduler) {
  GeneratedKnobs declared;
  schedule_generated(*scheduler.inlined_chain(), declared, scheduler.target());
  return declared.space();
}

}  // namespace tessel::autotune

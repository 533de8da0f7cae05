// The row-parallel CPU schedule of the reduction family (see row_schedule.h).
#include "schedules/cpu/row_schedule.h"

#include <algorithm>
#include <tuple>

#include "schedules/cpu/generic.h"
#include "schedules/cpu/lane_reduction.h"

namespace tessel::schedules {
namespace {

/// Splits the last loop of an element-wise float32 stage whose rows are longer than a
/// vector and vectorizes the inner part.
void vectorize_row(schedule::Schedule& s, const std::string& stage, int64_t row_axes,
                   int64_t vector_factor, int64_t lanes) {
  te::Operation op = s.stage(stage).op;
  te::Tensor t = op->output(0);
  std::vector<int64_t> shape = te::static_shape(t);
  if (op->has_reduction() || op->num_outputs() != 1 || t.dtype() != ir::DataType::Float(32) ||
      static_cast<int64_t>(shape.size()) <= row_axes || shape.back() < lanes)
    return;
  std::string last = s.stage(stage).leaves.back();
  s.vectorize(stage, s.split(stage, last, std::min(lanes * vector_factor, shape.back())).second);
}

}  // namespace

TuningSpace rows_tuning_space(const std::string& template_name, const std::vector<int64_t>& shape,
                              int64_t row_axes, const target::Target& target) {
  int64_t rows = 1, row_length = 1;
  for (size_t d = 0; d < shape.size(); ++d)
    (static_cast<int64_t>(d) < row_axes ? rows : row_length) *= shape[d];
  if (row_axes == 0 || rows <= 1) return {};
  TuningSpace space{template_name, {}};
  space.knobs.push_back(
      {"vector_factor",
       values_up_to({1, 2, 4}, std::max<int64_t>(1, row_length / target.float_lanes()))});
  space.knobs.push_back({"row_block", values_up_to({1, 2, 4, 8, 16}, rows)});
  return space;
}

RowConfig row_config(const KnobValues& knobs) {
  RowConfig config;
  config.vector_factor = knobs.get("vector_factor", config.vector_factor);
  config.row_block = knobs.get("row_block", config.row_block);
  return config;
}

void schedule_rows(schedule::Schedule& s, const te::Tensor& y, int64_t row_axes, int64_t work,
                   const target::Target& target, const RowConfig& config) {
  if (row_axes == 0) {
    schedule_generic(s, {y}, target);
    return;
  }
  const std::vector<std::string> loops = s.stage(y).leaves;
  std::string rows = loops[0];
  for (int64_t d = 1; d < row_axes; ++d) rows = s.fuse(y, rows, loops[static_cast<size_t>(d)]);
  std::string parallel_rows = rows;
  if (config.row_block > 1) std::tie(parallel_rows, rows) = s.split(y, rows, config.row_block);
  if (work >= kParallelMinElements) s.parallel(y, parallel_rows);
  std::string output = s.stage(y).name;
  std::vector<std::string> inner;
  for (const schedule::Stage& stage : s.stages())
    if (!stage.is_placeholder() && stage.name != output) inner.push_back(stage.name);
  int64_t lanes = target.float_lanes();
  for (const std::string& stage : inner) {
    // A row reduction (softmax's max and sum, LayerNorm's moments) accumulates one partial
    // result per vector lane, combined at the end: in one scalar chain, every element would
    // wait for the previous add or max to finish.
    std::string partial =
        factorable_over_lanes(*s.stage(stage).op, lanes) ? factor_over_lanes(s, stage, lanes) : "";
    s.compute_at(stage, y, rows);
    if (!partial.empty()) s.compute_at(partial, y, rows);
    vectorize_row(s, stage, row_axes, config.vector_factor, lanes);
  }
  vectorize_row(s, output, row_axes, config.vector_factor, lanes);
}

bool schedule_columns(schedule::Schedule& s, int64_t work, const target::Target& target) {
  int64_t lanes = target.float_lanes();
  std::vector<std::string> reductions, maps;
  for (const schedule::Stage& stage : s.stages()) {
    if (stage.is_placeholder()) continue;
    const te::OperationNode& op = *stage.op;
    std::vector<int64_t> shape = te::static_shape(op.output(0));
    bool columns = op.num_outputs() == 1 && op.output(0).dtype() == ir::DataType::Float(32) &&
                   !shape.empty() && shape.back() % lanes == 0;
    if (!columns) return false;
    (op.has_reduction() ? reductions : maps).push_back(stage.name);
  }
  if (reductions.empty()) return false;
  for (const std::string& name : reductions) {
    std::vector<std::string> leaves = s.stage(name).leaves;
    size_t kept = s.stage(name).op->axis.size();
    int64_t vectors = te::static_shape(s.stage(name).op->output(0)).back() / lanes;
    std::vector<std::string> reduced(leaves.begin() + static_cast<long>(kept), leaves.end());
    auto [columns, vector] = s.split(name, leaves[kept - 1], lanes);
    std::vector<std::string> order{columns};
    order.insert(order.end(), reduced.begin(), reduced.end());
    order.push_back(vector);
    s.reorder(name, order);
    s.vectorize(name, vector);
    if (work >= kParallelMinElements && kept == 1 && vectors > 1) s.parallel(name, columns);
  }
  for (const std::string& name : maps) vectorize_row(s, name, 0, 1, lanes);
  return true;
}

int64_t row_axes_before(const std::vector<int64_t>& axes, int64_t rank) {
  if (axes.empty()) return 0;
  for (size_t k = 0; k < axes.size(); ++k)
    if (axes[k] != rank - static_cast<int64_t>(axes.size() - k)) return 0;
  return axes.front();
}

}  // namespace tessel::schedules

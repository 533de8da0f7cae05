// rfactor: turns one reduction loop of a stage into a data-parallel axis of a new stage
// that computes partial reductions; the original stage then reduces the partial results.
//
// With C[i] = sum_k A[i, k], k split into (k.outer, k.inner) and rfactor on k.inner:
//   C.rf[k.inner, i] = sum_{k.outer} A[i, k.outer * f + k.inner]   (guarded when f does
//                                                                   not divide the extent)
//   C[i]             = sum_{k.inner} C.rf[k.inner, i]
#include "arith/analyzer.h"
#include "ir/functor.h"
#include "schedule/loop_nest.h"
#include "schedule/schedule.h"
#include "support/error.h"

namespace tessel::schedule {
namespace {

using ir::Expr;

/// Checks that the data-parallel loops of `s` are as made (rfactor rebuilds them).
void check_data_parallel_untouched(const Stage& s, const std::string& loop) {
  auto is_reduce = [&](const std::string& name) {
    return s.find_loop(name)->kind == ir::IterKind::Reduce;
  };
  for (const LoopRelation& rel : s.relations) {
    const std::string& any = rel.kind == LoopRelation::Kind::Split ? rel.parent : rel.outer;
    if (!is_reduce(any))
      throw ScheduleError(
          s.name, loop,
          "rfactor: data-parallel loop '" + any + "' was already transformed; apply rfactor first");
  }
  for (const Loop& l : s.loops)
    if (l.kind == ir::IterKind::DataPar && l.for_kind != ir::ForKind::Serial)
      throw ScheduleError(
          s.name, loop,
          "rfactor: data-parallel loop '" + l.name + "' is annotated; apply rfactor first");
  if (!s.prefetches.empty())
    throw ScheduleError(s.name, loop,
                        "rfactor: loop '" + s.prefetches[0].loop + "' prefetches '" +
                            s.prefetches[0].tensor + "'; apply rfactor first");
}

/// Fresh copies of the data-parallel axes of `op`.
std::vector<ir::IterVar> copy_axes(const te::Operation& op) {
  std::vector<ir::IterVar> axes;
  for (const ir::IterVar& iv : op->axis)
    axes.push_back(ir::IterVar{ir::Var(iv.var.name()), iv.min, iv.extent, iv.kind});
  return axes;
}

}  // namespace

te::Tensor Schedule::rfactor(const te::Tensor& tensor, std::string loop, int factor_axis) {
  Stage& s = compute_stage(tensor, "rfactor");
  const te::Operation old = s.op;
  if (!old->has_reduction())
    throw ScheduleError(s.name, loop, "rfactor: the stage has no reduction");
  if (old->num_outputs() != 1)
    throw ScheduleError(s.name, loop, "rfactor: stages with several outputs are not supported");
  check_leaf(s, loop);
  if (s.find_loop(loop)->kind != ir::IterKind::Reduce)
    throw ScheduleError(s.name, loop, "rfactor: the loop is not a reduction loop");
  const int ndim = static_cast<int>(old->axis.size());
  if (factor_axis < 0 || factor_axis > ndim)
    throw ScheduleError(
        s.name, loop,
        detail::concat("rfactor: factor_axis must be in [0, ", ndim, "], got ", factor_axis));
  check_data_parallel_untouched(s, loop);
  for (const Stage& other : stages_)
    if (other.attach == AttachKind::At && other.attach_stage == s.name)
      throw ScheduleError(s.name, other.attach_loop,
                          "rfactor: stage '" + other.name + "' is computed at this loop");

  // The loop nest of the reduction, with its own variables for the leaves.
  arith::Analyzer analyzer;
  std::vector<Expr> root_extents;
  for (size_t r = 0; r < s.roots.size(); ++r) root_extents.push_back(root_iter_var(s, r).extent);
  LoopNest nest = derive_loop_nest(s, root_extents, analyzer);

  std::vector<ir::IterVar> rf_axes = copy_axes(old);
  std::vector<ir::IterVar> rf_reduce;
  ir::IterVar factored;
  std::vector<std::pair<ir::Var, Expr>> leaf_map;
  for (size_t l = 0; l < s.leaves.size(); ++l) {
    const Loop& leaf = *s.find_loop(s.leaves[l]);
    if (leaf.kind != ir::IterKind::Reduce) continue;
    ir::IterVar iv{ir::Var(leaf.name), ir::make_int(0), nest.leaf_extents[l], ir::IterKind::Reduce};
    if (leaf.name == loop) {
      iv.kind = ir::IterKind::DataPar;
      factored = iv;
    } else {
      rf_reduce.push_back(iv);
    }
    leaf_map.emplace_back(nest.leaf_vars[l], iv.var);
  }
  rf_axes.insert(rf_axes.begin() + factor_axis, factored);

  // The reduction's body over the new variables.
  std::vector<std::pair<ir::Var, Expr>> body_map;
  for (int d = 0; d < ndim; ++d) {
    int position = d < factor_axis ? d : d + 1;  // skip the factored axis
    body_map.emplace_back(old->axis[d].var, rf_axes[position].var);
  }
  for (size_t r = ndim; r < s.roots.size(); ++r) {
    const ir::IterVar& iv = root_iter_var(s, r);
    Expr value = iv.min + ir::substitute(nest.root_offsets[r], leaf_map);
    body_map.emplace_back(iv.var, analyzer.simplify(value));
  }
  const auto* reduce = old->bodies[0].as<ir::ReduceNode>();
  Expr source = ir::substitute(reduce->source, body_map);
  Expr condition = ir::substitute(reduce->condition, body_map);
  for (const Expr& guard : nest.guards) condition = condition && ir::substitute(guard, leaf_map);
  condition = analyzer.simplify(condition);
  Expr rf_body;
  if (!rf_reduce.empty()) {
    rf_body = ir::make_Reduce(reduce->op, source, rf_reduce, condition);
  } else {
    rf_body = ir::is_one(condition)
                  ? source
                  : ir::select(condition, source, ir::reduce_identity(reduce->op, source.dtype()));
  }
  std::string name = unique_stage_name(tensor.name() + ".rf");
  std::vector<Expr> rf_shape;
  for (const ir::IterVar& iv : rf_axes) rf_shape.push_back(iv.extent);
  te::Tensor rf = te::make_compute_op(name, rf_shape, rf_axes, {rf_body}, {name})->output(0);

  // The original stage reduces the partial results over a loop named like the factored one.
  ir::IterVar k{ir::Var(loop), ir::make_int(0), factored.extent, ir::IterKind::Reduce};
  std::vector<Expr> rf_index;
  for (const ir::IterVar& iv : old->axis) rf_index.push_back(iv.var);
  rf_index.insert(rf_index.begin() + factor_axis, k.var);
  te::Operation combined =
      te::make_compute_op(old->name, old->shape, old->axis,
                          {ir::make_Reduce(reduce->op, rf(rf_index), {k})}, old->output_names);
  Stage fresh = make_stage(combined);
  s.op = combined;
  s.loops = fresh.loops;
  s.roots = fresh.roots;
  s.relations.clear();
  s.leaves = fresh.leaves;
  register_op(combined, s.name);
  insert_stage(position_of(s.name), make_stage(rf.op()));

  record("rfactor", {{"tensor", tensor.name()}, {"loop", loop}, {"factor_axis", factor_axis}});
  return rf;
}

}  // namespace tessel::schedule

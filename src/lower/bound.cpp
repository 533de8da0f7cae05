// Bound inference: root ranges of stages, from their consumers' loads for compute_at stages.
#include "lower/bound.h"

#include <algorithm>
#include <unordered_set>

#include "ir/functor.h"
#include "support/error.h"

namespace tessel::lower {
namespace {

using ir::Expr;
using ir::Var;

/// The index vectors of every load of `stage`'s outputs in some expressions.
class LoadIndexCollector : public ir::IRVisitor {
 public:
  LoadIndexCollector(const schedule::Schedule& schedule, const schedule::Stage& stage)
      : schedule_(schedule), stage_(stage) {}
  void visit_Load(const ir::LoadNode* op) override {
    IRVisitor::visit_Load(op);
    const te::TensorBufferNode* t = te::as_tensor_buffer(op->buffer);
    if (t && schedule_.stage_of(t->op.get()) == &stage_) loads.push_back(op->indices);
  }
  std::vector<std::vector<Expr>> loads;

 private:
  const schedule::Schedule& schedule_;
  const schedule::Stage& stage_;
};

}  // namespace

arith::IntervalSet relax(const Expr& e, const std::vector<Var>& relax, LowerState& state) {
  arith::IntervalSet range = arith::IntervalSet::point(e);
  for (auto it = relax.rbegin(); it != relax.rend() && range.bounded(); ++it) {
    if (!ir::uses_var(range.min, *it) && !ir::uses_var(range.max, *it)) continue;
    const Expr& extent = state.loop_extent.at(it->get());
    arith::VarDomain dom{{it->get(), arith::IntervalSet::from_range(ir::make_int(0), extent)}};
    Expr lo = state.analyzer.eval_interval(range.min, dom).min;
    Expr hi = state.analyzer.eval_interval(range.max, dom).max;
    range = {lo, hi};
  }
  return range;
}

namespace {

/// Joins `add` into `acc` (undefined ends stay unbounded).
void join(arith::IntervalSet& acc, const arith::IntervalSet& add, bool first) {
  if (first) {
    acc = add;
    return;
  }
  acc.min = acc.min.defined() && add.min.defined() ? ir::min(acc.min, add.min) : Expr();
  acc.max = acc.max.defined() && add.max.defined() ? ir::max(acc.max, add.max) : Expr();
}

/// Checks that `consumer` runs inside every loop enclosing `info`; returns the loops of
/// `consumer` (enclosing ones included) that do not enclose `info`, outermost first.
std::vector<Var> loops_to_relax(const StageInfo& info, const StageInfo& consumer) {
  std::vector<Var> loops = consumer.outer_vars;
  loops.insert(loops.end(), consumer.nest.leaf_vars.begin(), consumer.nest.leaf_vars.end());
  std::unordered_set<const ir::VarNode*> consumer_loops;
  for (const Var& v : loops) consumer_loops.insert(v.get());
  std::unordered_set<const ir::VarNode*> fixed;
  for (const Var& v : info.outer_vars) {
    fixed.insert(v.get());
    if (consumer_loops.count(v.get())) continue;
    const schedule::Stage& s = *info.stage;
    throw ScheduleError(s.name, s.attach_loop,
                        "compute_at: stage '" + consumer.stage->name + "' reads '" + s.name +
                            "' outside loop '" + s.attach_loop + "' of stage '" + s.attach_stage +
                            "' (attach it inside that loop too, or compute '" + s.name +
                            "' at an outer loop)");
  }
  std::vector<Var> relaxed;
  for (const Var& v : loops)
    if (!fixed.count(v.get())) relaxed.push_back(v);
  return relaxed;
}

/// Per dimension of `info`'s outputs: the interval its consumers read.
std::vector<arith::IntervalSet> needed_region(const StageInfo& info, LowerState& state) {
  const size_t ndim = info.stage->op->axis.size();
  std::vector<arith::IntervalSet> region(ndim);
  bool first = true;
  for (const StageInfo* consumer : info.consumers) {
    std::vector<Var> relaxed = loops_to_relax(info, *consumer);
    std::vector<std::pair<Var, Expr>> root_values;
    for (size_t r = 0; r < consumer->stage->roots.size(); ++r)
      root_values.emplace_back(schedule::root_iter_var(*consumer->stage, r).var,
                               consumer->root_value[r]);
    LoadIndexCollector collector(state.schedule, *info.stage);
    for (const Expr& body : consumer->bodies) collector.visit(body);
    for (const std::vector<Expr>& indices : collector.loads) {
      for (size_t d = 0; d < ndim; ++d) {
        Expr index = state.analyzer.simplify(ir::substitute(indices[d], root_values));
        join(region[d], relax(index, relaxed, state), first);
      }
      first = false;
    }
  }
  TESSEL_ICHECK(!first, "stage '", info.stage->name, "' is attached but nothing reads it");
  return region;
}

/// Consumers never read outside a tensor (their own guards skip such points), so a
/// constant region is clamped to the tensor's constant extent. Symbolic regions are kept:
/// clamping them would make loop extents symbolic; guards cover the overhang instead.
void clamp_to_shape(Expr& lo, Expr& hi, const Expr& extent) {
  const int64_t* l = ir::as_const_int(lo);
  const int64_t* h = ir::as_const_int(hi);
  const int64_t* n = ir::as_const_int(extent);
  if (!l || !h || !n) return;
  int64_t clamped_lo = std::max<int64_t>(*l, 0), clamped_hi = std::min(*h, *n - 1);
  if (clamped_lo > clamped_hi) return;  // reads entirely outside: keep them visible
  lo = ir::make_int(clamped_lo);
  hi = ir::make_int(clamped_hi);
}

}  // namespace

void infer_root_ranges(StageInfo& info, LowerState& state) {
  const te::Operation& op = info.stage->op;
  info.root_min.clear();
  info.root_extent.clear();
  std::vector<arith::IntervalSet> region;
  if (info.attach_target) region = needed_region(info, state);
  for (size_t d = 0; d < op->axis.size(); ++d) {
    if (region.empty() || !region[d].bounded()) {
      info.root_min.push_back(ir::make_int(0));
      info.root_extent.push_back(op->shape[d]);
      continue;
    }
    Expr lo = state.analyzer.simplify(region[d].min);
    Expr hi = state.analyzer.simplify(region[d].max);
    clamp_to_shape(lo, hi, op->shape[d]);
    info.root_min.push_back(lo);
    info.root_extent.push_back(state.analyzer.simplify(hi - lo + ir::make_int(1)));
  }
  for (const ir::IterVar& iv : op->reduce_axis) {
    info.root_min.push_back(iv.min);
    info.root_extent.push_back(iv.extent);
  }
}

}  // namespace tessel::lower

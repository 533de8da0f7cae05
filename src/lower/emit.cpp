// Loop-nest emission for one stage: stores, reduction init/update, guards, attachments.
#include "lower/emit.h"

#include "ir/functor.h"
#include "lower/prefetch.h"
#include "support/error.h"
#include "te/rewrite.h"

namespace tessel::lower {
namespace {

using ir::Expr;
using ir::Stmt;

/// A condition on the iterations of a stage, placed inside the loop of leaf `level`
/// (-1: around the whole nest).
struct Guard {
  Expr condition;
  int level = -1;
  bool uses_reduction = false;
};

/// Whether `e` is an integer, or a condition on integers only.
bool is_integer_valued(const Expr& e) {
  if (e.dtype().is_integer()) return true;
  if (!e.dtype().is_bool()) return false;
  switch (e.kind()) {
    case ir::ExprKind::EQ:
      return e.as<ir::EQNode>()->a.dtype().is_integer();
    case ir::ExprKind::NE:
      return e.as<ir::NENode>()->a.dtype().is_integer();
    case ir::ExprKind::LT:
      return e.as<ir::LTNode>()->a.dtype().is_integer();
    case ir::ExprKind::LE:
      return e.as<ir::LENode>()->a.dtype().is_integer();
    case ir::ExprKind::GT:
      return e.as<ir::GTNode>()->a.dtype().is_integer();
    case ir::ExprKind::GE:
      return e.as<ir::GENode>()->a.dtype().is_integer();
    case ir::ExprKind::And:
      return is_integer_valued(e.as<ir::AndNode>()->a) && is_integer_valued(e.as<ir::AndNode>()->b);
    case ir::ExprKind::Or:
      return is_integer_valued(e.as<ir::OrNode>()->a) && is_integer_valued(e.as<ir::OrNode>()->b);
    case ir::ExprKind::Not:
      return is_integer_valued(e.as<ir::NotNode>()->a);
    default:
      return false;
  }
}

/// Simplifies the integer parts of a value (indices, integer conditions of selects, casts
/// of loop variables) and leaves the float arithmetic as written.
class IntegerSimplifier : public ir::IRMutator {
 public:
  explicit IntegerSimplifier(arith::Analyzer& analyzer) : analyzer_(analyzer) {}
  Expr mutate(const Expr& e) override {
    return is_integer_valued(e) ? analyzer_.simplify(e) : IRMutator::mutate(e);
  }

 private:
  arith::Analyzer& analyzer_;
};

/// Whether `e` reads memory.
bool reads_memory(const Expr& e) {
  struct Finder : ir::IRVisitor {
    bool found = false;
    void visit_Load(const ir::LoadNode*) override { found = true; }
  } finder;
  finder.visit(e);
  return finder.found;
}

/// Whether `e` is an ordering comparison (<, <=, >, >=) of integers.
bool is_integer_comparison(const Expr& e) {
  ir::ExprKind k = e.kind();
  bool ordering = k == ir::ExprKind::LT || k == ir::ExprKind::LE || k == ir::ExprKind::GT ||
                  k == ir::ExprKind::GE;
  return ordering && is_integer_valued(e);
}

/// `value` stored at `index` of `buffer`. A select at its root that compares integers of
/// the index arithmetic (no value read) and reads memory on both arms (a Concat: which
/// input holds this position) becomes an if/else
/// of two stores: a select evaluates both arms, so a Concat of n inputs would load n
/// values per element; branches load one, loop partitioning can split the loop where the
/// comparison turns, and a vectorized loop whose lanes disagree makes it a select again.
Stmt store_value(const ir::Buffer& buffer, const Expr& value, const std::vector<Expr>& index) {
  const auto* choice = value.as<ir::SelectNode>();
  if (choice && is_integer_comparison(choice->condition) && !reads_memory(choice->condition) &&
      reads_memory(choice->true_value) && reads_memory(choice->false_value))
    return ir::make_IfThenElse(choice->condition, store_value(buffer, choice->true_value, index),
                               store_value(buffer, choice->false_value, index));
  return ir::make_Store(buffer, value, index);
}

Stmt guarded(const std::vector<const Guard*>& guards, Stmt body) {
  if (guards.empty()) return body;
  Expr all = guards[0]->condition;
  for (size_t i = 1; i < guards.size(); ++i) all = all && guards[i]->condition;
  return ir::make_IfThenElse(all, std::move(body));
}

class StageEmitter {
 public:
  StageEmitter(const StageInfo& info, LowerState& state)
      : info_(info), state_(state), stage_(*info.stage), op_(*info.stage->op) {}

  Stmt emit() {
    collect_guards();
    Stmt nest = op_.has_reduction() ? emit_reduction() : emit_plain();
    std::vector<const Guard*> top;
    for (const Guard& g : guards_)
      if (g.level < 0) top.push_back(&g);
    return guarded(top, nest);
  }

 private:
  // ---- guards ----
  void collect_guards() {
    for (const Expr& g : info_.nest.guards) add_guard(g);
    if (!info_.attach_target) return;
    // A region computed for consumers may overhang the tensor: skip points outside it.
    for (size_t d = 0; d < op_.axis.size(); ++d) {
      const Expr& value = info_.root_value[d];
      add_guard(state_.analyzer.simplify(value >= ir::make_int(0)));
      add_guard(state_.analyzer.simplify(value < op_.shape[d]));
    }
  }

  void add_guard(const Expr& condition) {
    if (state_.analyzer.can_prove(condition)) return;
    Guard g{condition, -1, false};
    for (size_t l = 0; l < info_.nest.leaf_vars.size(); ++l) {
      if (!ir::uses_var(condition, info_.nest.leaf_vars[l])) continue;
      g.level = static_cast<int>(l);
      g.uses_reduction = g.uses_reduction || is_reduction_leaf(l);
    }
    guards_.push_back(g);
  }

  bool is_reduction_leaf(size_t l) const {
    return stage_.find_loop(stage_.leaves[l])->kind == ir::IterKind::Reduce;
  }

  // ---- nests ----
  Stmt emit_plain() {
    std::vector<Stmt> stores;
    for (int o = 0; o < op_.num_outputs(); ++o)
      stores.push_back(store_value(info_.buffers[o], value_of(info_.bodies[o]), store_index()));
    return wrap(range(0, num_leaves()), ir::make_Seq(std::move(stores)), guards_at(0, true), true);
  }

  Stmt emit_reduction() {
    int first = 0;
    while (first < num_leaves() && !is_reduction_leaf(first)) ++first;
    TESSEL_ICHECK(first < num_leaves(), "reduction stage '", stage_.name,
                  "' has no reduction leaf");
    std::vector<int> init_loops;
    for (int l = first; l < num_leaves(); ++l)
      if (!is_reduction_leaf(l)) init_loops.push_back(l);
    std::vector<Stmt> inits, updates;
    std::vector<Expr> index = store_index();
    for (int o = 0; o < op_.num_outputs(); ++o) {
      const auto* r = info_.bodies[o].as<ir::ReduceNode>();
      const ir::Buffer& buffer = info_.buffers[o];
      inits.push_back(ir::make_Store(buffer, ir::reduce_identity(r->op, r->dtype), index));
      Expr combined = ir::reduce_combine(r->op, ir::make_Load(buffer, index), value_of(r->source));
      Stmt update = ir::make_Store(buffer, combined, index);
      Expr condition = value_of(r->condition);
      updates.push_back(ir::is_one(condition) ? update : ir::make_IfThenElse(condition, update));
    }
    Stmt init = wrap(init_loops, ir::make_Seq(std::move(inits)), guards_at(first, false), false);
    Stmt update = wrap(range(first, num_leaves()), ir::make_Seq(std::move(updates)),
                       guards_at(first, true), true);
    std::vector<const Guard*> prefix;
    for (const Guard& g : guards_)
      if (g.level >= 0 && g.level < first) prefix.push_back(&g);
    return wrap(range(0, first), ir::make_Seq({init, update}), prefix, true);
  }

  /// Guards at leaves >= `from`; without reduction variables unless `with_reduction`.
  std::vector<const Guard*> guards_at(int from, bool with_reduction) const {
    std::vector<const Guard*> out;
    for (const Guard& g : guards_)
      if (g.level >= from && (with_reduction || !g.uses_reduction)) out.push_back(&g);
    return out;
  }

  /// `body` inside the loops of leaves `loops` (outermost first), each guard placed inside
  /// the loop of its level and, with `attach`, attached stages at the top of each loop.
  Stmt wrap(const std::vector<int>& loops, Stmt body, const std::vector<const Guard*>& guards,
            bool attach) {
    for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
      int l = *it;
      std::vector<const Guard*> here;
      for (const Guard* g : guards)
        if (g->level == l) here.push_back(g);
      body = guarded(here, std::move(body));
      if (attach) body = with_prefetches(info_, l, with_attached(l, std::move(body)), state_);
      const schedule::Loop& loop = *stage_.find_loop(stage_.leaves[l]);
      body = ir::make_For(info_.nest.leaf_vars[l], ir::make_int(0), info_.nest.leaf_extents[l],
                          loop.for_kind, std::move(body));
    }
    return body;
  }

  Stmt with_attached(int leaf, Stmt body) {
    std::vector<const StageInfo*> children;
    std::vector<Stmt> seq;
    for (const auto& other : state_.infos) {
      if (other->attach_target != &info_ || other->attach_leaf != leaf) continue;
      children.push_back(other.get());
      seq.push_back(emit_stage(*other, state_));
    }
    if (children.empty()) return body;
    seq.push_back(std::move(body));
    return allocate_buffers(children, ir::make_Seq(std::move(seq)));
  }

  // ---- values ----
  Expr value_of(const Expr& e) {
    std::vector<std::pair<ir::Var, Expr>> map;
    for (size_t r = 0; r < stage_.roots.size(); ++r)
      map.emplace_back(schedule::root_iter_var(stage_, r).var, info_.root_value[r]);
    Expr value = to_storage(ir::substitute(e, map), state_, stage_.name);
    return IntegerSimplifier(state_.analyzer).mutate(value);
  }

  std::vector<Expr> store_index() {
    std::vector<Expr> index;
    for (size_t d = 0; d < op_.axis.size(); ++d)
      index.push_back(state_.analyzer.simplify(info_.root_value[d] - info_.storage_offset[d]));
    return index;
  }

  int num_leaves() const { return static_cast<int>(stage_.leaves.size()); }
  static std::vector<int> range(int begin, int end) {
    std::vector<int> out;
    for (int i = begin; i < end; ++i) out.push_back(i);
    return out;
  }

  const StageInfo& info_;
  LowerState& state_;
  const schedule::Stage& stage_;
  const te::OperationNode& op_;
  std::vector<Guard> guards_;
};

}  // namespace

Stmt emit_stage(const StageInfo& info, LowerState& state) {
  return StageEmitter(info, state).emit();
}

Stmt allocate_buffers(const std::vector<const StageInfo*>& stages, Stmt body) {
  for (auto s = stages.rbegin(); s != stages.rend(); ++s)
    for (size_t o = (*s)->buffers.size(); o-- > 0;)
      if ((*s)->allocated[o]) body = ir::make_Allocate((*s)->buffers[o], std::move(body));
  return body;
}

Expr to_storage(const Expr& e, LowerState& state, const std::string& reader) {
  return te::rewrite_loads(e, [&](const te::Tensor& t, const std::vector<Expr>& idx) {
    const schedule::Stage* producer = state.schedule.stage_of(t.op().get());
    TESSEL_ICHECK(producer, "tensor '", t.name(), "' has no stage");
    std::vector<Expr> index;
    if (producer->is_placeholder()) {
      auto it = state.placeholder_params.find(producer);
      if (it == state.placeholder_params.end())
        TESSEL_USER_ERROR("stage '", reader, "' reads tensor '", t.name(),
                          "', which is not among the function arguments");
      for (const Expr& i : idx) index.push_back(state.analyzer.simplify(i));
      return ir::make_Load(it->second[t.value_index()], std::move(index));
    }
    auto it = state.info_of.find(producer);
    TESSEL_ICHECK(it != state.info_of.end(), "stage '", producer->name, "' read by '", reader,
                  "' has no storage (inlined stages are substituted first)");
    const StageInfo& p = *it->second;
    for (size_t d = 0; d < idx.size(); ++d)
      index.push_back(state.analyzer.simplify(idx[d] - p.storage_offset[d]));
    return ir::make_Load(p.buffers[t.value_index()], std::move(index));
  });
}

}  // namespace tessel::lower

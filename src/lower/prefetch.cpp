// Prefetches of the next iteration's data, spread over the iterations inside a loop.
#include "lower/prefetch.h"

#include <algorithm>

#include "ir/functor.h"
#include "lower/bound.h"
#include "support/error.h"

namespace tessel::lower {
namespace {

using ir::Expr;
using ir::Stmt;
using ir::Var;

constexpr int64_t kCacheLineBytes = 64;
/// More lines than this per iteration are fetched by a serial loop instead of unrolled.
constexpr int64_t kMaxUnrolledLines = 8;

/// The storage of the prefetched tensor: a function parameter or a root stage's buffer.
ir::Buffer prefetched_buffer(const schedule::Stage& stage, const schedule::Prefetch& p,
                             LowerState& state) {
  te::Tensor t = state.schedule.tensor(p.tensor);
  const schedule::Stage* producer = state.schedule.stage_of(t.op().get());
  if (producer->is_placeholder()) {
    auto it = state.placeholder_params.find(producer);
    if (it == state.placeholder_params.end() || !it->second[t.value_index()].defined())
      throw ScheduleError(stage.name, p.loop,
                          "prefetch: '" + p.tensor + "' is not among the function arguments");
    return it->second[t.value_index()];
  }
  auto it = state.info_of.find(producer);
  if (it == state.info_of.end() || it->second->attach_target)
    throw ScheduleError(stage.name, p.loop,
                        "prefetch: '" + p.tensor +
                            "' is not computed at the root; only function arguments and stages "
                            "computed at the root can be prefetched");
  return it->second->buffers[t.value_index()];
}

/// The row-major element offset of `indices` in `buffer`.
Expr flat_offset(const ir::Buffer& buffer, const std::vector<Expr>& indices) {
  Expr offset = indices.empty() ? ir::make_int(0) : indices[0];
  for (size_t d = 1; d < indices.size(); ++d) offset = offset * buffer->shape[d] + indices[d];
  return offset;
}

/// The range of row-major offsets at which a statement loads one buffer, with the loops
/// inside the statement ranging over their extents.
class SpanFinder : public ir::IRVisitor {
 public:
  SpanFinder(const ir::Buffer& buffer, LowerState& state) : buffer_(buffer), state_(state) {}

  void visit_For(const ir::ForNode* op) override {
    loops_.push_back(op->var);
    IRVisitor::visit_For(op);
    loops_.pop_back();
  }
  void visit_Load(const ir::LoadNode* op) override {
    IRVisitor::visit_Load(op);
    if (!op->buffer->data.same_as(buffer_->data)) return;
    arith::IntervalSet range = relax(flat_offset(buffer_, op->indices), loops_, state_);
    if (!found_) {
      span = range;
    } else {
      span.min = span.min.defined() && range.min.defined() ? ir::min(span.min, range.min) : Expr();
      span.max = span.max.defined() && range.max.defined() ? ir::max(span.max, range.max) : Expr();
    }
    found_ = true;
  }
  bool found() const { return found_; }

  arith::IntervalSet span;

 private:
  const ir::Buffer& buffer_;
  LowerState& state_;
  std::vector<Var> loops_;
  bool found_ = false;
};

/// Serial loops of constant extent nested in one another from the top of a statement.
struct Chain {
  std::vector<const ir::ForNode*> loops;
  int64_t trips = 1;
};

/// The chain with the most iterations in all (the first of equals), through allocations,
/// lets and sequences; it stops at any other statement or loop kind.
Chain serial_chain(const Stmt& s) {
  switch (s.kind()) {
    case ir::StmtKind::For: {
      const auto* op = s.as<ir::ForNode>();
      const int64_t* extent = ir::as_const_int(op->extent);
      if (op->for_kind != ir::ForKind::Serial || !extent || *extent < 1) return {};
      Chain inner = serial_chain(op->body);
      inner.loops.insert(inner.loops.begin(), op);
      inner.trips *= *extent;
      return inner;
    }
    case ir::StmtKind::Allocate:
      return serial_chain(s.as<ir::AllocateNode>()->body);
    case ir::StmtKind::LetStmt:
      return serial_chain(s.as<ir::LetStmtNode>()->body);
    case ir::StmtKind::Seq: {
      Chain best;
      for (const Stmt& item : s.as<ir::SeqNode>()->seq) {
        Chain c = serial_chain(item);
        if (c.trips > best.trips) best = std::move(c);
      }
      return best;
    }
    case ir::StmtKind::Store:
    case ir::StmtKind::IfThenElse:
    case ir::StmtKind::Evaluate:
    case ir::StmtKind::Prefetch:
      return {};
  }
  return {};
}

/// Puts `prefetch` at the top of the body of loop `target` (by identity).
class PrefetchPlacer : public ir::IRMutator {
 public:
  PrefetchPlacer(const ir::ForNode* target, Stmt prefetch)
      : target_(target), prefetch_(std::move(prefetch)) {}
  Stmt mutate_For(const ir::ForNode* op, const Stmt& self) override {
    if (op != target_) return IRMutator::mutate_For(op, self);
    return ir::make_For(op->var, op->min, op->extent, op->for_kind,
                        ir::make_Seq({prefetch_, op->body}), op->thread_tag);
  }

 private:
  const ir::ForNode* target_;
  Stmt prefetch_;
};

Stmt add_prefetch(const StageInfo& info, int leaf, const schedule::Prefetch& p, Stmt body,
                  LowerState& state) {
  const schedule::Stage& stage = *info.stage;
  ir::Buffer buffer = prefetched_buffer(stage, p, state);
  SpanFinder finder(buffer, state);
  finder.visit(body);
  if (!finder.found())
    throw ScheduleError(stage.name, p.loop,
                        "prefetch: nothing in the loop reads '" + p.tensor + "'");
  arith::Analyzer& az = state.analyzer;
  Expr first = finder.span.bounded() ? az.simplify(finder.span.min) : Expr();
  int64_t span = -1;
  if (first.defined()) {
    arith::ConstBound b = az.const_bound(az.simplify(finder.span.max - first + ir::make_int(1)));
    if (b.max != arith::ConstBound::kPosInf) span = b.max;
  }
  if (span < 1)
    throw ScheduleError(stage.name, p.loop,
                        "prefetch: the span of '" + p.tensor +
                            "' read in one iteration of the loop has no constant bound");
  const int64_t line = std::max<int64_t>(1, kCacheLineBytes / buffer->dtype.element().bytes());
  const Var& v = info.nest.leaf_vars[leaf];
  Expr next = ir::min(v + ir::make_int(1), info.nest.leaf_extents[leaf] - ir::make_int(1));
  Expr start = az.simplify(ir::substitute(first, {{v, next}}));
  bool aligned = az.can_prove(first % ir::make_int(line) == ir::make_int(0));
  int64_t lines = (span + line - 1) / line + (aligned ? 0 : 1);

  Chain chain = serial_chain(body);
  Expr t = ir::make_int(0);
  for (const ir::ForNode* loop : chain.loops)
    t = t * loop->extent + loop->var;
  int64_t per = (lines + chain.trips - 1) / chain.trips;
  // Relaxed loads may reach past the buffer (guarded ones at the edges): such ends are
  // clamped to it.
  int64_t size = buffer.const_size();
  bool low_inside = az.can_prove(start >= ir::make_int(0));
  bool high_inside =
      size > 0 && az.can_prove(start + ir::make_int(span - 1) < ir::make_int(size));
  auto fetch = [&](const Expr& line_index) {
    Expr offset = start + ir::min(line_index * ir::make_int(line), ir::make_int(span - 1));
    if (!low_inside) offset = ir::max(offset, ir::make_int(0));
    if (!high_inside && size > 0) offset = ir::min(offset, ir::make_int(size - 1));
    return ir::make_Prefetch(buffer, az.simplify(offset));
  };
  Stmt prefetch;
  if (per == 1) {
    prefetch = fetch(t * ir::make_int(lines) / ir::make_int(chain.trips));
  } else {
    Var u(p.tensor + ".line");
    prefetch = ir::make_For(u, ir::make_int(0), ir::make_int(per),
                            per <= kMaxUnrolledLines ? ir::ForKind::Unrolled : ir::ForKind::Serial,
                            fetch(t * ir::make_int(per) + u));
  }
  if (chain.loops.empty()) return ir::make_Seq({prefetch, body});
  return PrefetchPlacer(chain.loops.back(), prefetch).mutate(body);
}

}  // namespace

Stmt with_prefetches(const StageInfo& info, int leaf, Stmt body, LowerState& state) {
  const schedule::Stage& stage = *info.stage;
  for (const schedule::Prefetch& p : stage.prefetches)
    if (p.loop == stage.leaves[leaf]) body = add_prefetch(info, leaf, p, std::move(body), state);
  return body;
}

}  // namespace tessel::lower

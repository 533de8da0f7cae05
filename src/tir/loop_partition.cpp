// loop_partition: for each loop (outermost first) find guards whose truth region in the loop
// variable is a prefix or a suffix of the loop range, split the loop there and recurse; when
// none splits it, version its body on the guards inside (loop_versioning) and recurse.
#include "tir/loop_partition.h"

#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "arith/analyzer.h"
#include "arith/linear_form.h"
#include "ir/functor.h"
#include "ir/printer.h"
#include "tir/loop_versioning.h"
#include "tir/simplify.h"

namespace tessel::tir {
namespace {

using ir::Expr;
using ir::Stmt;
using ir::Var;

/// A place to split a loop: the conjunct `conjunct` of `node`'s condition holds for every
/// v < point (true_below) or every v >= point; when false_beyond, it fails everywhere else.
struct Split {
  const ir::Object* node = nullptr;  // an IfThenElseNode or a SelectNode
  size_t conjunct = 0;
  Expr point;
  bool true_below = true;
  bool false_beyond = false;
};

/// c*v + r, a bound of the guard's d (the guard holds iff d < 0) linear in v.
struct LinearBound {
  int64_t coef;
  Expr rest;
};

/// Collects the guards of a loop body that split the loop over `var`: its IfThenElse nodes,
/// and its Select nodes outside Let expressions unless the loop is vectorized (a select is
/// how a vector loop computes by lanes).
class GuardFinder : public ir::IRVisitor {
 public:
  GuardFinder(const ir::ForNode* loop, arith::Analyzer& analyzer)
      : loop_(loop), analyzer_(analyzer), selects_(loop->for_kind != ir::ForKind::Vectorized) {}

  std::vector<Split> find() {
    visit(loop_->body);
    std::vector<Split> unique;
    for (const Split& s : splits_)
      if (occurrences_[s.node] == 1) unique.push_back(s);
    return unique;
  }

  void visit(const Expr& e) override {
    if (selects_) IRVisitor::visit(e);
  }
  void visit(const Stmt& s) override { IRVisitor::visit(s); }
  // A Let expression's variable may appear in the guards inside it: they are left alone.
  void visit_Let(const ir::LetNode*) override {}

  void visit_For(const ir::ForNode* op) override {
    declared_.insert(op->var.get());
    Expr min = substitute_lets(op->min), extent = substitute_lets(op->extent);
    domain_[op->var.get()] = arith::IntervalSet::from_range(min, extent);
    visit(op->body);
    domain_.erase(op->var.get());
  }

  void visit_LetStmt(const ir::LetStmtNode* op) override {
    declared_.insert(op->var.get());
    lets_.push_back({op->var, substitute_lets(op->value)});
    visit(op->body);
    lets_.pop_back();
  }

  void visit_Allocate(const ir::AllocateNode* op) override { visit(op->body); }

  void visit_IfThenElse(const ir::IfThenElseNode* op) override {
    if (occurrences_[op]++ == 0) analyze(op, op->condition);
    visit(op->then_case);
    if (op->else_case.defined()) visit(op->else_case);
  }

  void visit_Select(const ir::SelectNode* op) override {
    if (occurrences_[op]++ == 0) analyze(op, op->condition);
    IRVisitor::visit_Select(op);
  }

 private:
  Expr substitute_lets(const Expr& e) const {
    Expr r = e;
    for (auto it = lets_.rbegin(); it != lets_.rend(); ++it) r = ir::substitute(r, {*it});
    return r;
  }

  void analyze(const ir::Object* op, const Expr& condition) {
    std::vector<Expr> conjuncts = conjuncts_of(condition);
    for (size_t k = 0; k < conjuncts.size(); ++k) {
      Expr cond = substitute_lets(conjuncts[k]);
      if (!ir::uses_var(cond, loop_->var)) continue;
      if (std::optional<Split> s = solve(cond)) {
        s->node = op;
        s->conjunct = k;
        splits_.push_back(*s);
      }
    }
  }

  // The split point of `cond` (a comparison using the loop variable), if any.
  std::optional<Split> solve(const Expr& cond) {
    Expr c = analyzer_.simplify(cond);
    Expr d;  // cond <=> d < 0
    if (const auto* lt = c.as<ir::LTNode>())
      d = lt->a - lt->b;
    else if (const auto* le = c.as<ir::LENode>())
      d = le->a - le->b - Expr(1);
    if (!is_guard_arithmetic(d)) return std::nullopt;
    arith::IntervalSet range = analyzer_.eval_interval(d, domain_);
    std::optional<LinearBound> upper = linear_in_loop_var(range.max);
    if (!upper || upper->coef == 0) return std::nullopt;
    // The guard holds where upper < 0: c*v + r < 0 <=> v < floor((-r - 1)/c) + 1 for c > 0,
    // v > floor(r/-c) for c < 0.
    int64_t coef = upper->coef;
    const Expr& r = upper->rest;
    Expr t = coef > 0 ? (Expr(0) - r - Expr(1)) / Expr(coef) + Expr(1) : r / Expr(-coef) + Expr(1);
    Split split;
    split.true_below = coef > 0;
    split.point = clamp(t);
    // It fails where lower >= 0: v >= ceil(-r'/c) for c > 0, v <= floor(r'/-c) for c < 0.
    std::optional<LinearBound> lower = linear_in_loop_var(range.min);
    if (lower && lower->coef == coef) {
      const Expr& r2 = lower->rest;
      Expr f = coef > 0 ? (Expr(coef - 1) - r2) / Expr(coef) : r2 / Expr(-coef) + Expr(1);
      split.false_beyond = coef > 0 ? analyzer_.can_prove(f <= t) : analyzer_.can_prove(t <= f);
    }
    return split;
  }

  // e as c*v + r with r free of v and of variables declared inside the loop.
  std::optional<LinearBound> linear_in_loop_var(const Expr& e) {
    if (!e.defined()) return std::nullopt;
    std::optional<arith::LinearForm> form = arith::to_linear(analyzer_.simplify(e));
    if (!form) return std::nullopt;
    LinearBound b{0, Expr()};
    arith::LinearForm rest = *form;
    rest.terms.clear();
    for (const arith::LinearTerm& t : form->terms) {
      if (t.atom.same_as(loop_->var))
        b.coef = t.coef;
      else if (ir::uses_var(t.atom, loop_->var))
        return std::nullopt;  // not linear in v
      else
        rest.terms.push_back(t);
    }
    b.rest = arith::from_linear(rest);
    if (uses_declared(b.rest)) return std::nullopt;
    return b;
  }

  // min(max(t, min), min + extent): a split point within the loop range.
  Expr clamp(const Expr& t) {
    Expr end = loop_->min + loop_->extent;
    return analyzer_.simplify(ir::min(ir::max(t, loop_->min), end));
  }

  bool uses_declared(const Expr& e) const {
    for (const ir::VarNode* v : declared_)
      if (ir::uses_var(e, Var(v))) return true;
    return false;
  }

  const ir::ForNode* loop_;
  arith::Analyzer& analyzer_;
  bool selects_;
  arith::VarDomain domain_;
  std::vector<std::pair<Var, Expr>> lets_;
  std::unordered_set<const ir::VarNode*> declared_;
  std::unordered_map<const ir::Object*, int> occurrences_;
  std::vector<Split> splits_;
};

/// Replaces one guard by its else branch (or nothing) or its false value: its condition is
/// false.
class GuardDropper : public ir::IRMutator {
 public:
  explicit GuardDropper(const ir::Object* node) : node_(node) {}

  Stmt mutate_IfThenElse(const ir::IfThenElseNode* op, const Stmt& self) override {
    if (op != node_) return IRMutator::mutate_IfThenElse(op, self);
    return op->else_case.defined() ? op->else_case : ir::make_Seq({});
  }

  Expr mutate_Select(const ir::SelectNode* op, const Expr& self) override {
    return op == node_ ? op->false_value : IRMutator::mutate_Select(op, self);
  }

 private:
  const ir::Object* node_;
};

class Partitioner : public ir::IRMutator {
 public:
  /// Mutates `s`, the body of a loop or of the function: versions it on its guards first.
  Stmt mutate_body(const Stmt& s) {
    if (vector_loops_ > 0 || depth_ >= kMaxVersionDepth) return mutate(s);
    std::optional<Versioning> v = version_guards(s, analyzer_, done_);
    if (!v) return mutate(s);
    if (v->version) pending_[v->version] = v->families;
    return mutate(v->stmt);
  }

  /// Whether every version made was visited (its families were known inside it).
  bool versions_done() const { return pending_.empty(); }

  Stmt mutate_For(const ir::ForNode* op, const Stmt& self) override {
    if (op->for_kind != ir::ForKind::ThreadBinding && !keep_.count(op->var.get())) {
      for (const Split& s : GuardFinder(op, analyzer_).find())
        if (std::optional<Stmt> r = partition(op, s)) return *r;
    }
    bool vectorized = op->for_kind == ir::ForKind::Vectorized;
    analyzer_.bind(op->var, op->min, op->extent);
    vector_loops_ += vectorized;
    Stmt body = mutate_body(op->body);
    vector_loops_ -= vectorized;
    analyzer_.unbind(op->var);
    return body.same_as(op->body) ? self : rebuild(op, op->var, op->min, op->extent, body);
  }

  Stmt mutate_IfThenElse(const ir::IfThenElseNode* op, const Stmt& self) override {
    auto it = pending_.find(op);
    if (it == pending_.end()) return IRMutator::mutate_IfThenElse(op, self);
    // A version made by mutate_body: its families are not versioned again inside it.
    size_t outer = done_.size();
    done_.insert(done_.end(), it->second.begin(), it->second.end());
    pending_.erase(it);
    ++depth_;
    Stmt r = IRMutator::mutate_IfThenElse(op, self);
    --depth_;
    done_.resize(outer);
    return r;
  }

 private:
  // The loop split at s, or nullopt when the split point makes no progress.
  std::optional<Stmt> partition(const ir::ForNode* op, const Split& s) {
    Expr end = op->min + op->extent;
    bool all = s.true_below ? analyzer_.can_prove(s.point >= end)
                            : analyzer_.can_prove(s.point <= op->min);
    bool none = s.true_below ? analyzer_.can_prove(s.point <= op->min)
                             : analyzer_.can_prove(s.point >= end);
    if (none) return std::nullopt;
    Stmt freed = drop_conjuncts(op->body, {{s.node, {s.conjunct}}});
    if (all) return mutate(simplify(rebuild(op, op->var, op->min, op->extent, freed)));
    Expr lo_extent = analyzer_.simplify(s.point - op->min);
    Expr hi_extent = analyzer_.simplify(end - s.point);
    Var fresh(op->var.name(), op->var.dtype());
    Stmt other = s.false_beyond ? GuardDropper(s.node).mutate(op->body) : op->body;
    Stmt guarded = ir::substitute(other, {{op->var, fresh}});
    Stmt main, rest;
    if (s.true_below) {
      main = rebuild(op, op->var, op->min, lo_extent, freed);
      rest = rebuild(op, fresh, s.point, hi_extent, guarded);
    } else {
      rest = rebuild(op, fresh, op->min, lo_extent, guarded);
      main = rebuild(op, op->var, s.point, hi_extent, freed);
    }
    keep_.insert(fresh.get());
    fresh_vars_.push_back(fresh);
    main = mutate(simplify(main));
    rest = mutate(simplify(rest));
    return s.true_below ? ir::make_Seq({main, rest}) : ir::make_Seq({rest, main});
  }

  static Stmt rebuild(const ir::ForNode* op, const Var& var, const Expr& min, const Expr& extent,
                      const Stmt& body) {
    return ir::make_For(var, min, extent, op->for_kind, body, op->thread_tag);
  }

  arith::Analyzer analyzer_;
  // Loop variables of guarded remainders: not partitioned again at their own level.
  std::unordered_set<const ir::VarNode*> keep_;
  std::vector<Var> fresh_vars_;  // keeps the keys of keep_ alive
  // Versions made by mutate_body, not yet mutated, with their guard families.
  std::unordered_map<const ir::IfThenElseNode*, std::vector<Expr>> pending_;
  std::vector<Expr> done_;  // the families of the versions around the current statement
  int depth_ = 0;           // how many versions are around it
  int vector_loops_ = 0;    // how many vectorized loops are around it
};

}  // namespace

Stmt loop_partition(const Stmt& s) {
  Partitioner partitioner;
  Stmt r = partitioner.mutate_body(s);
  TESSEL_ICHECK(partitioner.versions_done(), "loop_partition: a version was not visited in\n", r);
  return r;
}

ir::PrimFunc loop_partition(const ir::PrimFunc& f) {
  return {f.name, f.params, loop_partition(f.body)};
}

}  // namespace tessel::tir

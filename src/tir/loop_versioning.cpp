// loop_versioning: collect the guards of a statement with the condition under which each holds
// for all iterations of the loops around it, then duplicate the smallest region holding the
// undecided ones into a fast path without them and the original.
#include "tir/loop_versioning.h"

#include <algorithm>

#include "arith/expr_equal.h"
#include "ir/functor.h"
#include "ir/printer.h"

namespace tessel::tir {
namespace {

using ir::Expr;
using ir::Stmt;
using ir::Var;

void flatten_and(const Expr& e, std::vector<Expr>& out) {
  if (const auto* a = e.as<ir::AndNode>()) {
    flatten_and(a->a, out);
    flatten_and(a->b, out);
  } else {
    out.push_back(e);
  }
}

/// Removes conjuncts from the conditions of some guards (see drop_conjuncts).
class ConjunctDropper : public ir::IRMutator {
 public:
  explicit ConjunctDropper(const ConjunctDrops& drops) : drops_(drops) {}

  Stmt mutate_IfThenElse(const ir::IfThenElseNode* op, const Stmt& self) override {
    Stmt r = IRMutator::mutate_IfThenElse(op, self);
    auto it = drops_.find(op);
    if (it == drops_.end()) return r;
    const auto* node = r.as<ir::IfThenElseNode>();
    Expr cond = kept(node->condition, it->second);
    return cond.defined() ? ir::make_IfThenElse(cond, node->then_case, node->else_case)
                          : node->then_case;
  }

  Expr mutate_Select(const ir::SelectNode* op, const Expr& self) override {
    Expr r = IRMutator::mutate_Select(op, self);
    auto it = drops_.find(op);
    if (it == drops_.end()) return r;
    const auto* node = r.as<ir::SelectNode>();
    Expr cond = kept(node->condition, it->second);
    return cond.defined() ? ir::make_Select(cond, node->true_value, node->false_value)
                          : node->true_value;
  }

 private:
  // The conjuncts of `cond` but those at `dropped`, joined with `&&` (undefined when none
  // is left).
  static Expr kept(const Expr& cond, const std::vector<size_t>& dropped) {
    std::vector<Expr> all = conjuncts_of(cond);
    Expr left;
    for (size_t k = 0; k < all.size(); ++k)
      if (std::find(dropped.begin(), dropped.end(), k) == dropped.end())
        left = left.defined() ? ir::make_And(left, all[k]) : all[k];
    return left;
  }

  const ConjunctDrops& drops_;
};

/// Whether an expression avoids some variables and reads no memory.
class OuterOnlyCheck : public ir::IRVisitor {
 public:
  explicit OuterOnlyCheck(const std::vector<Var>& inner) : inner_(inner) {}

  bool holds(const Expr& e) {
    ok_ = true;
    visit(e);
    return ok_;
  }
  void visit_Var(const ir::VarNode* op) override {
    for (const Var& v : inner_) ok_ = ok_ && v.get() != op;
  }
  void visit_Load(const ir::LoadNode*) override { ok_ = false; }

 private:
  const std::vector<Var>& inner_;
  bool ok_ = true;
};

/// A guard conjunct that is versioned: it holds wherever `holds` does.
struct Candidate {
  const ir::Object* node;
  size_t conjunct;
  Expr holds;
};

/// Finds the guards of a statement and classifies their conjuncts.
class GuardCollector : public ir::IRVisitor {
 public:
  GuardCollector(arith::Analyzer& analyzer, const std::vector<Expr>& done)
      : analyzer_(analyzer), done_(done) {}

  void collect(const Stmt& s) {
    visit(s);
    auto unique = [&](const ir::Object* node) { return occurrences_[node] == 1; };
    std::erase_if(candidates, [&](const Candidate& c) { return !unique(c.node); });
    std::erase_if(always, [&](const auto& entry) { return !unique(entry.first); });
  }

  // A Let expression's variable may appear in the guards inside it: they are left alone.
  void visit_Let(const ir::LetNode*) override {}

  void visit_For(const ir::ForNode* op) override {
    loops_.push_back({op->var, substitute_lets(op->min), substitute_lets(op->extent)});
    inner_.push_back(op->var);
    visit(op->body);
    inner_.pop_back();
    loops_.pop_back();
  }

  void visit_LetStmt(const ir::LetStmtNode* op) override {
    lets_.push_back({op->var, substitute_lets(op->value)});
    inner_.push_back(op->var);
    visit(op->body);
    inner_.pop_back();
    lets_.pop_back();
  }

  void visit_IfThenElse(const ir::IfThenElseNode* op) override {
    if (occurrences_[op]++ == 0 && !loops_.empty()) classify(op, op->condition);
    visit(op->then_case);
    if (op->else_case.defined()) visit(op->else_case);
  }

  void visit_Select(const ir::SelectNode* op) override {
    if (occurrences_[op]++ == 0 && !loops_.empty()) classify(op, op->condition);
    IRVisitor::visit_Select(op);
  }

  std::vector<Candidate> candidates;
  ConjunctDrops always;  ///< Conjuncts that provably hold wherever they are evaluated.

 private:
  struct Loop {
    Var var;
    Expr min, extent;
  };

  Expr substitute_lets(const Expr& e) const {
    Expr r = e;
    for (auto it = lets_.rbegin(); it != lets_.rend(); ++it) r = ir::substitute(r, {*it});
    return r;
  }

  void classify(const ir::Object* op, const Expr& condition) {
    std::vector<Expr> conjuncts = conjuncts_of(condition);
    for (size_t k = 0; k < conjuncts.size(); ++k) {
      std::optional<Expr> holds = holds_everywhere(substitute_lets(conjuncts[k]));
      if (!holds || analyzer_.can_prove(!*holds)) continue;
      if (analyzer_.can_prove(*holds)) {
        always[op].push_back(k);
      } else if (std::none_of(done_.begin(), done_.end(),
                              [&](const Expr& d) { return arith::deep_equal(d, *holds); })) {
        candidates.push_back({op, k, *holds});
      }
    }
  }

  // A condition on the variables in scope outside every loop around the guard under which
  // `cond` holds for all their iterations, if `cond` is an integer comparison.
  std::optional<Expr> holds_everywhere(const Expr& cond) {
    Expr c = analyzer_.simplify(cond);
    Expr d;  // cond <=> d < 0
    if (const auto* lt = c.as<ir::LTNode>())
      d = lt->a - lt->b;
    else if (const auto* le = c.as<ir::LENode>())
      d = le->a - le->b - ir::make_const(le->a.dtype(), 1);
    else if (const auto* gt = c.as<ir::GTNode>())
      d = gt->b - gt->a;
    else if (const auto* ge = c.as<ir::GENode>())
      d = ge->b - ge->a - ir::make_const(ge->a.dtype(), 1);
    if (!is_guard_arithmetic(d)) return std::nullopt;
    Expr upper = d;
    for (auto it = loops_.rbegin(); it != loops_.rend(); ++it) {
      if (!ir::uses_var(upper, it->var)) continue;
      arith::VarDomain dom{{it->var.get(), arith::IntervalSet::from_range(it->min, it->extent)}};
      upper = analyzer_.eval_interval(upper, dom).max;
      if (!upper.defined()) return std::nullopt;
    }
    if (!OuterOnlyCheck(inner_).holds(upper)) return std::nullopt;
    return analyzer_.simplify(upper < ir::make_const(upper.dtype(), 0));
  }

  arith::Analyzer& analyzer_;
  const std::vector<Expr>& done_;
  std::vector<Loop> loops_;                 // enclosing loops inside the statement
  std::vector<std::pair<Var, Expr>> lets_;  // enclosing lets inside the statement
  std::vector<Var> inner_;                  // variables declared by both
  std::unordered_map<const ir::Object*, int> occurrences_;
};

/// Whether a statement holds one of some guard nodes.
class GuardPresence : public ir::IRVisitor {
 public:
  explicit GuardPresence(const ConjunctDrops& guards) : guards_(guards) {}

  bool in(const Stmt& s) {
    found_ = false;
    visit(s);
    return found_;
  }
  void visit(const Expr& e) override {
    if (!found_) IRVisitor::visit(e);
  }
  void visit(const Stmt& s) override {
    if (!found_) IRVisitor::visit(s);
  }
  void visit_IfThenElse(const ir::IfThenElseNode* op) override {
    found_ = found_ || guards_.count(op);
    IRVisitor::visit_IfThenElse(op);
  }
  void visit_Select(const ir::SelectNode* op) override {
    found_ = found_ || guards_.count(op);
    IRVisitor::visit_Select(op);
  }

 private:
  const ConjunctDrops& guards_;
  bool found_ = false;
};

/// Counts the statement nodes of a statement.
class StmtCounter : public ir::IRVisitor {
 public:
  void visit(const Expr&) override {}
  void visit(const Stmt& s) override {
    ++count;
    IRVisitor::visit(s);
  }
  int64_t count = 0;
};

/// Builds the versioned statement: wraps the smallest region holding the versioned guards.
class Versioner {
 public:
  /// `always`: conjuncts dropped everywhere; `versioned`: those dropped in the fast path.
  Versioner(const ConjunctDrops& always, const ConjunctDrops& versioned, const Expr& cond)
      : always_(always), fast_(always), versioned_(versioned), cond_(cond) {
    for (const auto& [node, ks] : versioned) {
      std::vector<size_t>& all = fast_[node];
      all.insert(all.end(), ks.begin(), ks.end());
    }
  }

  /// The rewritten statement, or nullopt when the region is too large to duplicate.
  std::optional<Stmt> place(const Stmt& s) {
    if (const auto* a = s.as<ir::AllocateNode>()) {
      std::optional<Stmt> body = place(a->body);
      return body ? std::optional(ir::make_Allocate(a->buffer, *body)) : std::nullopt;
    }
    if (const auto* l = s.as<ir::LetStmtNode>()) {
      std::optional<Stmt> body = place(l->body);
      return body ? std::optional(ir::make_LetStmt(l->var, l->value, *body)) : std::nullopt;
    }
    const auto* seq = s.as<ir::SeqNode>();
    if (!seq) return version(s);
    GuardPresence presence(versioned_);
    size_t first = seq->seq.size(), last = 0;
    for (size_t i = 0; i < seq->seq.size(); ++i) {
      if (!presence.in(seq->seq[i])) continue;
      first = std::min(first, i);
      last = i;
    }
    TESSEL_ICHECK(first <= last, "versioning: no versioned guard in\n", s);
    std::vector<Stmt> region(seq->seq.begin() + first, seq->seq.begin() + last + 1);
    std::optional<Stmt> middle = first == last ? place(region[0]) : version(ir::make_Seq(region));
    if (!middle) return std::nullopt;
    std::vector<Stmt> out;
    for (size_t i = 0; i < first; ++i) out.push_back(drop_conjuncts(seq->seq[i], always_));
    out.push_back(*middle);
    for (size_t i = last + 1; i < seq->seq.size(); ++i)
      out.push_back(drop_conjuncts(seq->seq[i], always_));
    return ir::make_Seq(out);
  }

  const ir::IfThenElseNode* version_node() const { return version_.as<ir::IfThenElseNode>(); }

 private:
  std::optional<Stmt> version(const Stmt& region) {
    StmtCounter counter;
    counter.visit(region);
    if (counter.count > kMaxVersionedStmts) return std::nullopt;
    version_ =
        ir::make_IfThenElse(cond_, drop_conjuncts(region, fast_), drop_conjuncts(region, always_));
    return version_;
  }

  const ConjunctDrops& always_;
  ConjunctDrops fast_;
  const ConjunctDrops& versioned_;
  Expr cond_;
  Stmt version_;
};

}  // namespace

bool is_guard_arithmetic(const Expr& d) {
  if (!d.defined() || !d.dtype().is_int() || !d.dtype().is_scalar() || d.dtype().bits < 32)
    return false;
  return OuterOnlyCheck({}).holds(d);
}

std::vector<Expr> conjuncts_of(const Expr& cond) {
  std::vector<Expr> out;
  flatten_and(cond, out);
  return out;
}

Stmt drop_conjuncts(const Stmt& s, const ConjunctDrops& drops) {
  return drops.empty() ? s : ConjunctDropper(drops).mutate(s);
}

std::optional<Versioning> version_guards(const Stmt& s, arith::Analyzer& analyzer,
                                         const std::vector<Expr>& done) {
  GuardCollector collector(analyzer, done);
  collector.collect(s);
  // The families, joined while the join may hold; the fast path drops their conjuncts.
  Versioning result;
  Expr cond;
  ConjunctDrops versioned;
  for (const Candidate& c : collector.candidates) {
    auto same = [&](const Expr& f) { return arith::deep_equal(f, c.holds); };
    bool known = std::any_of(result.families.begin(), result.families.end(), same);
    if (!known) {
      Expr next = cond.defined() ? cond && c.holds : c.holds;
      if (analyzer.can_prove(!next)) continue;
      cond = next;
      result.families.push_back(c.holds);
    }
    versioned[c.node].push_back(c.conjunct);
  }
  if (cond.defined()) {
    Versioner versioner(collector.always, versioned, analyzer.simplify(cond));
    if (std::optional<Stmt> placed = versioner.place(s)) {
      result.stmt = *placed;
      result.version = versioner.version_node();
      return result;
    }
  }
  if (collector.always.empty()) return std::nullopt;
  return Versioning{drop_conjuncts(s, collector.always), nullptr, {}};
}

}  // namespace tessel::tir

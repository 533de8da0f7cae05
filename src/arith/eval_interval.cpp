// Symbolic interval evaluation by monotonicity: each node maps its operands' intervals to
// the interval of its result when the operation is monotonic in them (+, -, * and floor /
// by a constant or a sign-known invariant, min, max, select, % within one period). Where
// no symbolic answer is safe, the constant bounds of the expression (variables of the
// domain ranging over the constant bounds of their intervals) are used instead.
#include "arith/eval_interval.h"

#include "arith/const_bound.h"
#include "arith/const_fold.h"
#include "arith/expr_equal.h"
#include "arith/interval_math.h"
#include "arith/simplifier.h"
#include "ir/functor.h"

namespace tessel::arith {
namespace {

using namespace ir;

class DomainUse : public IRVisitor {
 public:
  explicit DomainUse(const VarDomain& dom) : dom_(dom) {}
  void visit_Var(const VarNode* op) override { found = found || dom_.count(op); }
  bool found = false;

 private:
  const VarDomain& dom_;
};

class IntervalEvaluator {
 public:
  IntervalEvaluator(const VarDomain& dom, Bindings& bindings)
      : dom_(dom), bindings_(bindings), simplifier_(bindings) {}

  IntervalSet eval(const Expr& e) {
    if (!depends_on_domain(e)) return IntervalSet::point(e);
    switch (e.kind()) {
      case ExprKind::Var:
        return dom_.at(e.as<VarNode>());
      case ExprKind::Add:
        return eval_add(e.as<AddNode>());
      case ExprKind::Sub:
        return eval_sub(e.as<SubNode>());
      case ExprKind::Mul:
        return eval_mul(e, e.as<MulNode>());
      case ExprKind::Div:
        return eval_div(e, e.as<DivNode>());
      case ExprKind::Mod:
        return eval_mod(e, e.as<ModNode>());
      case ExprKind::Min:
        return eval_min_max(e.as<MinNode>(), true);
      case ExprKind::Max:
        return eval_min_max(e.as<MaxNode>(), false);
      case ExprKind::Select:
        return eval_select(e.as<SelectNode>());
      default:
        return fallback(e);
    }
  }

  Expr simplify(const Expr& e) { return e.defined() ? simplifier_.mutate(e) : e; }

 private:
  bool depends_on_domain(const Expr& e) {
    DomainUse use(dom_);
    use.visit(e);
    return use.found;
  }

  // Constant bounds of e with the domain variables bound to their intervals' constant
  // bounds.
  IntervalSet fallback(const Expr& e) {
    Bindings overlay = bindings_;
    for (const auto& [var, interval] : dom_) {
      ConstBound lo = interval.min.defined() ? const_bound_of(simplify(interval.min), bindings_)
                                             : bound::everything();
      ConstBound hi = interval.max.defined() ? const_bound_of(simplify(interval.max), bindings_)
                                             : bound::everything();
      overlay.erase(var);
      overlay.set_bound(Var(var), ConstBound{lo.min, hi.max});
    }
    ConstBound b = const_bound_of(e, overlay);
    DataType t = e.dtype();
    return {b.min == ConstBound::kNegInf ? Expr() : make_wrapped_int(t, b.min),
            b.max == ConstBound::kPosInf ? Expr() : make_wrapped_int(t, b.max)};
  }

  static Expr add(const Expr& a, const Expr& b) {
    return a.defined() && b.defined() ? make_Add(a, b) : Expr();
  }
  static Expr sub(const Expr& a, const Expr& b) {
    return a.defined() && b.defined() ? make_Sub(a, b) : Expr();
  }
  static Expr apply(Expr (*make)(Expr, Expr), const Expr& a, const Expr& b) {
    return a.defined() ? make(a, b) : Expr();
  }

  IntervalSet eval_add(const AddNode* op) {
    IntervalSet a = eval(op->a), b = eval(op->b);
    return {add(a.min, b.min), add(a.max, b.max)};
  }

  IntervalSet eval_sub(const SubNode* op) {
    IntervalSet a = eval(op->a), b = eval(op->b);
    return {sub(a.min, b.max), sub(a.max, b.min)};
  }

  // Sign of an expression that does not vary over the domain: +1, -1, or 0 when unknown.
  int sign_of(const Expr& e) {
    ConstBound b = const_bound_of(e, bindings_);
    if (b.min >= 0) return 1;
    if (b.max <= 0) return -1;
    return 0;
  }

  // a * k (or a / k, via make) for an invariant k of known sign.
  IntervalSet scale(const IntervalSet& a, const Expr& k, int sign, Expr (*make)(Expr, Expr)) {
    if (sign > 0) return {apply(make, a.min, k), apply(make, a.max, k)};
    return {apply(make, a.max, k), apply(make, a.min, k)};
  }

  IntervalSet eval_mul(const Expr& e, const MulNode* op) {
    bool a_varies = depends_on_domain(op->a), b_varies = depends_on_domain(op->b);
    if (a_varies && b_varies) return fallback(e);
    const Expr& k = a_varies ? op->b : op->a;
    int sign = sign_of(k);
    if (sign == 0) return fallback(e);
    return scale(eval(a_varies ? op->a : op->b), k, sign, make_Mul);
  }

  IntervalSet eval_div(const Expr& e, const DivNode* op) {
    // floor(a / k) is nondecreasing in a for k > 0 and nonincreasing for k < 0.
    if (depends_on_domain(op->b)) return fallback(e);
    int sign = sign_of(op->b);
    if (sign == 0 || is_zero(op->b)) return fallback(e);
    return scale(eval(op->a), op->b, sign, make_Div);
  }

  IntervalSet eval_mod(const Expr& e, const ModNode* op) {
    // Within one period of a positive divisor, a % k == a - (a / k)*k is increasing in a.
    const int64_t* k = as_const_int(op->b);
    if (!k || *k <= 0) return fallback(e);
    IntervalSet a = eval(op->a);
    if (a.bounded()) {
      Expr lo_q = simplify(make_Div(a.min, op->b)), hi_q = simplify(make_Div(a.max, op->b));
      if (deep_equal(lo_q, hi_q)) return {make_Mod(a.min, op->b), make_Mod(a.max, op->b)};
    }
    return fallback(e);
  }

  template <class Node>
  IntervalSet eval_min_max(const Node* op, bool is_min) {
    IntervalSet a = eval(op->a), b = eval(op->b);
    Expr (*make)(Expr, Expr) = is_min ? make_Min : make_Max;
    // min: the lower end is unbounded if either is; an unbounded upper end yields the other.
    auto tight = [&](const Expr& x, const Expr& y) {
      return x.defined() && y.defined() ? make(x, y) : Expr();
    };
    auto loose = [&](const Expr& x, const Expr& y) {
      if (!x.defined()) return y;
      if (!y.defined()) return x;
      return make(x, y);
    };
    if (is_min) return {tight(a.min, b.min), loose(a.max, b.max)};
    return {loose(a.min, b.min), tight(a.max, b.max)};
  }

  IntervalSet eval_select(const SelectNode* op) {
    IntervalSet t = eval(op->true_value), f = eval(op->false_value);
    auto both = [](Expr (*make)(Expr, Expr), const Expr& x, const Expr& y) {
      return x.defined() && y.defined() ? make(x, y) : Expr();
    };
    return {both(make_Min, t.min, f.min), both(make_Max, t.max, f.max)};
  }

  const VarDomain& dom_;
  Bindings& bindings_;
  Simplifier simplifier_;
};

}  // namespace

IntervalSet eval_interval_of(const Expr& e, const VarDomain& dom, Bindings& bindings) {
  IntervalEvaluator evaluator(dom, bindings);
  // Simplifying first cancels correlated terms: (i*4 + j) - i*4 is j, not [j - 3, j + 3].
  IntervalSet r = evaluator.eval(evaluator.simplify(e));
  return {evaluator.simplify(r.min), evaluator.simplify(r.max)};
}

}  // namespace tessel::arith

// Simplifier rules for And, Or, Not and Select:
//   true && x -> x, false && x -> false, x && x -> x (and the duals for ||);
//   !!x -> x; on integers !(a < b) -> b <= a, !(a <= b) -> b < a; !(a == b) -> a != b;
//   select(true, t, f) -> t, select(c, t, t) -> t.
#include "arith/const_fold.h"
#include "arith/simplifier.h"

namespace tessel::arith {

using namespace ir;

namespace {

// The constant truth value of a bool immediate (or broadcast of one).
std::optional<bool> truth(const Expr& e) {
  const int64_t* v = as_const_int(e);
  if (!v) return std::nullopt;
  return *v != 0;
}

}  // namespace

Expr Simplifier::simplify_and(const Expr& a, const Expr& b) {
  if (Expr r = fold_binary(ExprKind::And, a, b)) return r;
  if (std::optional<bool> ta = truth(a)) return *ta ? b : a;
  if (std::optional<bool> tb = truth(b)) return *tb ? a : b;
  if (deep_equal(a, b)) return a;
  if (Expr r = simplify_vector_binary(ExprKind::And, a, b)) return r;
  return make_And(a, b);
}

Expr Simplifier::simplify_or(const Expr& a, const Expr& b) {
  if (Expr r = fold_binary(ExprKind::Or, a, b)) return r;
  if (std::optional<bool> ta = truth(a)) return *ta ? a : b;
  if (std::optional<bool> tb = truth(b)) return *tb ? b : a;
  if (deep_equal(a, b)) return a;
  if (Expr r = simplify_vector_binary(ExprKind::Or, a, b)) return r;
  return make_Or(a, b);
}

Expr Simplifier::simplify_not(const Expr& a) {
  if (Expr r = fold_not(a)) return r;
  if (const auto* n = a.as<NotNode>()) return n->a;
  if (const auto* eq = a.as<EQNode>()) return simplify_cmp(ExprKind::NE, eq->a, eq->b);
  if (const auto* ne = a.as<NENode>()) return simplify_cmp(ExprKind::EQ, ne->a, ne->b);
  // Ordered comparisons negate only without NaN: integers.
  if (const auto* lt = a.as<LTNode>(); lt && lt->a.dtype().is_integer())
    return simplify_cmp(ExprKind::LE, lt->b, lt->a);
  if (const auto* le = a.as<LENode>(); le && le->a.dtype().is_integer())
    return simplify_cmp(ExprKind::LT, le->b, le->a);
  if (const auto* b = a.as<BroadcastNode>())
    return make_Broadcast(simplify_not(b->value), b->lanes);
  return make_Not(a);
}

Expr Simplifier::simplify_select(const Expr& c, const Expr& t, const Expr& f) {
  if (std::optional<bool> tc = truth(c)) return *tc ? t : f;
  if (deep_equal(t, f)) return t;
  return make_Select(c, t, f);
}

Expr Simplifier::mutate_And(const AndNode* op, const Expr& self) {
  return binary(op, self, [this](const Expr& a, const Expr& b) { return simplify_and(a, b); });
}

Expr Simplifier::mutate_Or(const OrNode* op, const Expr& self) {
  return binary(op, self, [this](const Expr& a, const Expr& b) { return simplify_or(a, b); });
}

Expr Simplifier::mutate_Not(const NotNode* op, const Expr& self) {
  Expr a = mutate(op->a);
  Expr r = simplify_not(a);
  return a.same_as(op->a) && deep_equal(r, self) ? self : r;
}

Expr Simplifier::mutate_Select(const SelectNode* op, const Expr& self) {
  Expr c = mutate(op->condition);
  Expr t = mutate(op->true_value);
  Expr f = mutate(op->false_value);
  Expr r = simplify_select(c, t, f);
  bool same = c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value);
  return same && deep_equal(r, self) ? self : r;
}

}  // namespace tessel::arith

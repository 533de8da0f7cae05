// Simplifier rules for Min and Max:
//   min(a, b) -> a when a - b <= 0 is provable from bounds (so min(x + 1, x + 3) -> x + 1,
//   min(x, 10) -> x when x <= 10), b when a - b >= 0; constants go to the right;
//   min(min(x, c1), c2) -> min(x, min(c1, c2));
//   min(a, max(a, b)) -> a,  min(min(a, b), b) -> min(a, b)  (absorption, any operand order);
//   likewise for max.
#include "arith/const_fold.h"
#include "arith/simplifier.h"

namespace tessel::arith {

using namespace ir;

namespace {

template <class Node>
bool has_operand(const Expr& e, const Expr& x) {
  const auto* n = e.as<Node>();
  return n && (deep_equal(n->a, x) || deep_equal(n->b, x));
}

// Rules shared by min (Same = Min, Dual = Max) and max (Same = Max, Dual = Min).
template <class Same, class Dual>
Expr absorb(const Expr& a, const Expr& b) {
  if (has_operand<Dual>(b, a)) return a;  // min(a, max(a, _)) -> a
  if (has_operand<Dual>(a, b)) return b;  // min(max(b, _), b) -> b
  if (has_operand<Same>(a, b)) return a;  // min(min(b, _), b) -> min(b, _)
  if (has_operand<Same>(b, a)) return b;
  return Expr();
}

}  // namespace

Expr Simplifier::simplify_min(const Expr& a, const Expr& b) {
  if (Expr r = fold_binary(ExprKind::Min, a, b)) return r;
  if (Expr r = simplify_vector_binary(ExprKind::Min, a, b)) return r;
  if (!is_index_like(a)) return make_Min(a, b);
  if (is_immediate(a)) return simplify_min(b, a);
  ConstBound d = difference_bound(a, b);
  if (d.max <= 0) return a;
  if (d.min >= 0) return b;
  if (Expr r = absorb<MinNode, MaxNode>(a, b)) return r;
  if (const auto* inner = a.as<MinNode>(); inner && is_immediate(inner->b) && is_immediate(b))
    return make_Min(inner->a, simplify_min(inner->b, b));
  return make_Min(a, b);
}

Expr Simplifier::simplify_max(const Expr& a, const Expr& b) {
  if (Expr r = fold_binary(ExprKind::Max, a, b)) return r;
  if (Expr r = simplify_vector_binary(ExprKind::Max, a, b)) return r;
  if (!is_index_like(a)) return make_Max(a, b);
  if (is_immediate(a)) return simplify_max(b, a);
  ConstBound d = difference_bound(a, b);
  if (d.min >= 0) return a;
  if (d.max <= 0) return b;
  if (Expr r = absorb<MaxNode, MinNode>(a, b)) return r;
  if (const auto* inner = a.as<MaxNode>(); inner && is_immediate(inner->b) && is_immediate(b))
    return make_Max(inner->a, simplify_max(inner->b, b));
  return make_Max(a, b);
}

Expr Simplifier::mutate_Min(const MinNode* op, const Expr& self) {
  return binary(op, self, [this](const Expr& a, const Expr& b) { return simplify_min(a, b); });
}

Expr Simplifier::mutate_Max(const MaxNode* op, const Expr& self) {
  return binary(op, self, [this](const Expr& a, const Expr& b) { return simplify_max(a, b); });
}

}  // namespace tessel::arith

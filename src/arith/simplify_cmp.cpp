// Simplifier rules for comparisons. On scalar integers a comparison becomes a test of the
// linear form d = a - b against zero:
//   folded to true/false when the bounds of d decide it (i*8 + j < 1024 with i in [0, 127],
//   j in [0, 7] -> true);
//   a > b -> b < a, a >= b -> b <= a;
//   otherwise rewritten as  P < N + k  (positive terms left, negative terms and constant
//   right) after dividing by the gcd g of the coefficients: x*4 < 13 -> x < 4,
//   x*2 == 7 -> false.
#include "arith/const_fold.h"
#include "arith/interval_math.h"
#include "arith/simplifier.h"

namespace tessel::arith {

using namespace ir;

namespace {

Expr make_cmp(ExprKind kind, const Expr& a, const Expr& b) {
  switch (kind) {
    case ExprKind::EQ:
      return make_EQ(a, b);
    case ExprKind::NE:
      return make_NE(a, b);
    case ExprKind::LT:
      return make_LT(a, b);
    case ExprKind::LE:
      return make_LE(a, b);
    case ExprKind::GT:
      return make_GT(a, b);
    case ExprKind::GE:
      return make_GE(a, b);
    default:
      TESSEL_INTERNAL_ERROR("make_cmp: ", kind_name(kind), " is not a comparison");
  }
}

// Whether `d <kind> 0` is decided by the bounds of d.
std::optional<bool> decide(ExprKind kind, const ConstBound& d) {
  switch (kind) {
    case ExprKind::LT:
      if (d.max < 0) return true;
      if (d.min >= 0) return false;
      return std::nullopt;
    case ExprKind::LE:
      if (d.max <= 0) return true;
      if (d.min > 0) return false;
      return std::nullopt;
    case ExprKind::EQ:
    case ExprKind::NE: {
      bool eq = kind == ExprKind::EQ;
      if (d.min == 0 && d.max == 0) return eq;
      if (d.min > 0 || d.max < 0) return !eq;
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

// Builds `d <kind> 0` for d with at least one term, in the form P <kind> N + k.
Expr normal_form(ExprKind kind, LinearForm d) {
  int64_t g = d.coef_gcd();
  int64_t k = d.constant;
  if (kind == ExprKind::LT)
    k = bound::floordiv(k, g);  // g*D + k < 0  <=> D < -floor(k/g)
  else if (kind == ExprKind::LE)
    k = -bound::floordiv(-k, g);  // g*D + k <= 0 <=> D <= -ceil(k/g)
  else if (k % g != 0)
    return make_bool(kind == ExprKind::NE);  // g*D == -k has no solution
  else
    k /= g;
  bool any_positive = false;
  for (LinearTerm& t : d.terms) {
    t.coef /= g;
    any_positive = any_positive || t.coef > 0;
  }
  // Equalities read best with the variables positive on the left.
  if (!any_positive && (kind == ExprKind::EQ || kind == ExprKind::NE)) {
    for (LinearTerm& t : d.terms) t.coef = -t.coef;
    k = -k;
    any_positive = true;
  }
  LinearForm lhs, rhs;
  lhs.dtype = rhs.dtype = d.dtype;
  for (const LinearTerm& t : d.terms) {
    if (t.coef > 0)
      lhs.terms.push_back(t);
    else
      rhs.terms.push_back({t.atom, -t.coef});
  }
  if (any_positive)
    rhs.constant = -k;
  else
    lhs.constant = k;
  return make_cmp(kind, from_linear(lhs), from_linear(rhs));
}

}  // namespace

Expr Simplifier::simplify_cmp(ExprKind kind, const Expr& a, const Expr& b) {
  if (Expr r = fold_binary(kind, a, b)) return r;
  if (Expr r = simplify_vector_binary(kind, a, b)) return r;
  if (!is_index_like(a)) return make_cmp(kind, a, b);
  if (kind == ExprKind::GT) return simplify_cmp(ExprKind::LT, b, a);
  if (kind == ExprKind::GE) return simplify_cmp(ExprKind::LE, b, a);
  std::optional<LinearForm> d = linear_difference(a, b);
  if (!d) return make_cmp(kind, a, b);
  canonicalize(*d);
  if (std::optional<bool> known = decide(kind, linear_bound(*d))) return make_bool(*known);
  if (d->terms.empty()) return make_cmp(kind, a, b);  // unreachable: constants are decided
  return normal_form(kind, *d);
}

Expr Simplifier::mutate_EQ(const EQNode* op, const Expr& self) {
  return binary(op, self,
                [this](const Expr& a, const Expr& b) { return simplify_cmp(ExprKind::EQ, a, b); });
}
Expr Simplifier::mutate_NE(const NENode* op, const Expr& self) {
  return binary(op, self,
                [this](const Expr& a, const Expr& b) { return simplify_cmp(ExprKind::NE, a, b); });
}
Expr Simplifier::mutate_LT(const LTNode* op, const Expr& self) {
  return binary(op, self,
                [this](const Expr& a, const Expr& b) { return simplify_cmp(ExprKind::LT, a, b); });
}
Expr Simplifier::mutate_LE(const LENode* op, const Expr& self) {
  return binary(op, self,
                [this](const Expr& a, const Expr& b) { return simplify_cmp(ExprKind::LE, a, b); });
}
Expr Simplifier::mutate_GT(const GTNode* op, const Expr& self) {
  return binary(op, self,
                [this](const Expr& a, const Expr& b) { return simplify_cmp(ExprKind::GT, a, b); });
}
Expr Simplifier::mutate_GE(const GENode* op, const Expr& self) {
  return binary(op, self,
                [this](const Expr& a, const Expr& b) { return simplify_cmp(ExprKind::GE, a, b); });
}

}  // namespace tessel::arith

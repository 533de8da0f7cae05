// Simplifier rules for comparisons. On scalar integers a comparison becomes a test of the
// linear form d = a - b against zero:
//   folded to true/false when the bounds of d decide it (i*8 + j < 1024 with i in [0, 127],
//   j in [0, 7] -> true);
//   a > b -> b < a, a >= b -> b <= a;
//   otherwise rewritten as  P < N + k  (positive terms left, negative terms and constant
//   right) after dividing by the gcd g of the coefficients: x*4 < 13 -> x < 4,
//   x*2 == 7 -> false;
//   a lone floor division against a constant compares its dividend: x/4 < 3 -> x < 12,
//   x/4 <= 2 -> x < 12, 2 < x/4 -> 12 <= x.
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

// For d = x/c + k or k - x/c (c > 0) compared below zero: the comparison on x itself,
// as d' < 0. x/c < m <=> x < m*c; x/c > m <=> x >= (m + 1)*c.
std::optional<LinearForm> expand_division(ExprKind kind, const LinearForm& d) {
  if ((kind != ExprKind::LT && kind != ExprKind::LE) || d.terms.size() != 1) return std::nullopt;
  const LinearTerm& t = d.terms[0];
  const auto* div = t.atom.as<DivNode>();
  const int64_t* c = div ? as_const_int(div->b) : nullptr;
  std::optional<LinearForm> x = to_linear(div ? div->a : t.atom);
  if (!c || *c <= 0 || !x || t.coef == ConstBound::kNegInf) return std::nullopt;
  // g*s*(x/c) + k < 0  <=>  s*(x/c) + floor(k/g) < 0;  ... <= 0  <=>  ... + ceil(k/g) <= 0.
  int64_t g = t.coef > 0 ? t.coef : -t.coef;
  int64_t k = kind == ExprKind::LT ? bound::floordiv(d.constant, g)
                                   : -bound::floordiv(-d.constant, g) - 1;  // <= 0: - 1 < 0
  int64_t shift;
  if (__builtin_mul_overflow(t.coef > 0 ? k : k + 1, *c, &shift)) return std::nullopt;
  if (t.coef < 0 && (!x->scale(-1) || __builtin_sub_overflow(shift, 1, &shift)))
    return std::nullopt;
  if (__builtin_add_overflow(x->constant, shift, &x->constant)) return std::nullopt;
  return x;
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
  // Each expansion removes a division, so this ends; the cap only bounds the work.
  for (int i = 0; i < 8; ++i) {
    std::optional<LinearForm> x = expand_division(kind, *d);
    if (!x) break;
    *d = *x;
    kind = ExprKind::LT;
    canonicalize(*d);
    if (std::optional<bool> known = decide(kind, linear_bound(*d))) return make_bool(*known);
  }
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

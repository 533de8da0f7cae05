// Simplifier rules for floor Div and Mod. For a positive constant divisor c, the dividend's
// linear form splits into q*c + r (terms whose coefficient c divides, and the rest):
//   (q*c + r) / c -> q + r / c               (exact for floor division)
//   (q*c + r) % c -> r % c
//   r / c -> m,  r % c -> r - m*c            when r provably lies in [m*c, m*c + c)
//   (g*A + s) / (g*m) -> A / m               when 0 <= s < g (g = gcd of r's coefficients, c)
//   (g*A + s) % (g*m) -> (A % m)*g + s
//   (x / c1) / c2 -> x / (c1*c2),  (x % c1) % c2 -> x % c2 when c2 divides c1
// Division by zero is never folded; a variable divisor is assumed nonzero.
#include <numeric>

#include "arith/const_fold.h"
#include "arith/interval_math.h"
#include "arith/simplifier.h"

namespace tessel::arith {

using namespace ir;

namespace {

struct Split {
  LinearForm quotient;   // terms (and constant part) divisible by c, already divided
  LinearForm remainder;  // the rest; its constant lies in [0, c)
};

Split split_by(const LinearForm& f, int64_t c) {
  Split s;
  s.quotient.dtype = s.remainder.dtype = f.dtype;
  for (const LinearTerm& t : f.terms) {
    if (t.coef % c == 0)
      s.quotient.terms.push_back({t.atom, t.coef / c});
    else
      s.remainder.terms.push_back(t);
  }
  s.quotient.constant = bound::floordiv(f.constant, c);
  s.remainder.constant = bound::floormod(f.constant, c);
  return s;
}

// The remainder form divided by g (its constant rounded down); the dropped part is
// remainder.constant % g.
LinearForm divide_exact(const LinearForm& r, int64_t g) {
  LinearForm a;
  a.dtype = r.dtype;
  for (const LinearTerm& t : r.terms) a.terms.push_back({t.atom, t.coef / g});
  a.constant = bound::floordiv(r.constant, g);
  return a;
}

// floor(lo / c) when equal to floor(hi / c), i.e. the bound lies within one period.
std::optional<int64_t> same_period(const ConstBound& b, int64_t c) {
  if (!b.bounded()) return std::nullopt;
  int64_t m = bound::floordiv(b.min, c);
  if (m != bound::floordiv(b.max, c)) return std::nullopt;
  return m;
}

// The factor of product `a` other than `b`, when `a` is a product with `b` as a factor.
Expr cofactor(const Expr& a, const Expr& b) {
  const auto* mul = a.as<MulNode>();
  if (!mul) return Expr();
  if (deep_equal(mul->b, b)) return mul->a;
  if (deep_equal(mul->a, b)) return mul->b;
  return Expr();
}

}  // namespace

Expr Simplifier::simplify_div(const Expr& a, const Expr& b) {
  if (Expr r = fold_binary(ExprKind::Div, a, b)) return r;
  if (Expr r = simplify_vector_binary(ExprKind::Div, a, b)) return r;
  if (!is_index_like(a)) return make_Div(a, b);
  const int64_t* c = as_const_int(b);
  if (!c) return divide_by_variable(a, b);
  if (*c == 0) return make_Div(a, b);
  if (*c == 1) return a;
  if (*c < 0) return fold_point(make_Div(a, b));
  std::optional<LinearForm> f = to_linear(a);
  if (!f) return divide_atom(a, *c);
  Split s = split_by(*f, *c);
  Expr quotient = simplify_linear(s.quotient);
  if (std::optional<int64_t> m = same_period(linear_bound(s.remainder), *c))
    return simplify_add(quotient, make_wrapped_int(a.dtype(), *m));
  int64_t g = std::gcd(s.remainder.coef_gcd(), *c);
  Expr rest = g > 1 ? simplify_div(simplify_linear(divide_exact(s.remainder, g)),
                                   make_wrapped_int(a.dtype(), *c / g))
                    : divide_atom(simplify_linear(s.remainder), *c);
  return simplify_add(quotient, rest);
}

Expr Simplifier::divide_atom(const Expr& a, int64_t c) {
  if (const auto* inner = a.as<DivNode>()) {
    const int64_t* c1 = as_const_int(inner->b);
    int64_t prod;
    if (c1 && *c1 > 0 && !__builtin_mul_overflow(*c1, c, &prod))
      return simplify_div(inner->a, make_wrapped_int(a.dtype(), prod));
  }
  return fold_point(make_Div(a, make_wrapped_int(a.dtype(), c)));
}

Expr Simplifier::simplify_mod(const Expr& a, const Expr& b) {
  if (Expr r = fold_binary(ExprKind::Mod, a, b)) return r;
  if (Expr r = simplify_vector_binary(ExprKind::Mod, a, b)) return r;
  if (!is_index_like(a)) return make_Mod(a, b);
  const int64_t* c = as_const_int(b);
  if (!c) return modulo_by_variable(a, b);
  if (*c == 0) return make_Mod(a, b);
  if (*c == 1 || *c == -1) return make_wrapped_int(a.dtype(), 0);
  if (*c < 0) return fold_point(make_Mod(a, b));
  std::optional<LinearForm> f = to_linear(a);
  if (!f) return modulo_atom(a, *c);
  LinearForm r = split_by(*f, *c).remainder;
  if (std::optional<int64_t> m = same_period(linear_bound(r), *c)) {
    r.constant -= *m * *c;
    return simplify_linear(r);
  }
  int64_t g = std::gcd(r.coef_gcd(), *c);
  if (g == 1) return modulo_atom(simplify_linear(r), *c);
  Expr inner =
      simplify_mod(simplify_linear(divide_exact(r, g)), make_wrapped_int(a.dtype(), *c / g));
  Expr scaled = simplify_mul(inner, make_wrapped_int(a.dtype(), g));
  return simplify_add(scaled, make_wrapped_int(a.dtype(), bound::floormod(r.constant, g)));
}

Expr Simplifier::modulo_atom(const Expr& a, int64_t c) {
  if (const auto* inner = a.as<ModNode>()) {
    const int64_t* c1 = as_const_int(inner->b);
    if (c1 && *c1 > 0 && *c1 % c == 0)
      return simplify_mod(inner->a, make_wrapped_int(a.dtype(), c));
  }
  return fold_point(make_Mod(a, make_wrapped_int(a.dtype(), c)));
}

Expr Simplifier::divide_by_variable(const Expr& a, const Expr& b) {
  if (deep_equal(a, b)) return make_wrapped_int(a.dtype(), 1);
  if (Expr k = cofactor(a, b)) return k;  // (k*b)/b == k: b is nonzero
  return fold_point(make_Div(a, b));
}

Expr Simplifier::modulo_by_variable(const Expr& a, const Expr& b) {
  if (deep_equal(a, b) || cofactor(a, b).defined()) return make_wrapped_int(a.dtype(), 0);
  if (bound(a).min >= 0 && difference_bound(b, a).min > 0) return a;  // 0 <= a < b
  return fold_point(make_Mod(a, b));
}

Expr Simplifier::mutate_Div(const DivNode* op, const Expr& self) {
  return binary(op, self, [this](const Expr& a, const Expr& b) { return simplify_div(a, b); });
}

Expr Simplifier::mutate_Mod(const ModNode* op, const Expr& self) {
  return binary(op, self, [this](const Expr& a, const Expr& b) { return simplify_mod(a, b); });
}

}  // namespace tessel::arith

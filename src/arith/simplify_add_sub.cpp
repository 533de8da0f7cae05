// Simplifier rules for Add, Sub and Mul: constant folding, vector rules, and for scalar
// integers the canonical linear form (like terms collected, constants summed):
//   (x*4 + y) - x*4 -> y      x + 1 - 1 -> x      (x + 2)*4 -> x*4 + 8
// A whole additive spine (Add, Sub, Mul by a constant) is collected into one linear form
// in one walk, its atoms simplified on the way, so that long sums are rebuilt only once.
#include "arith/const_fold.h"
#include "arith/simplifier.h"

namespace tessel::arith {

using namespace ir;

namespace {

// a + scale*b as a linear form, or nullopt when either is not linear-friendly.
std::optional<LinearForm> combine(const Expr& a, const Expr& b, int64_t scale) {
  std::optional<LinearForm> fa = to_linear(a);
  std::optional<LinearForm> fb = to_linear(b);
  if (!fa || !fb || !fa->add(*fb, scale)) return std::nullopt;
  return fa;
}

}  // namespace

Expr Simplifier::simplify_add(const Expr& a, const Expr& b) {
  if (Expr r = fold_binary(ExprKind::Add, a, b)) return r;
  if (Expr r = simplify_vector_binary(ExprKind::Add, a, b)) return r;
  if (!is_index_like(a)) return make_Add(a, b);
  std::optional<LinearForm> f = combine(a, b, 1);
  return f ? simplify_linear(*f) : make_Add(a, b);
}

Expr Simplifier::simplify_sub(const Expr& a, const Expr& b) {
  if (Expr r = fold_binary(ExprKind::Sub, a, b)) return r;
  if (Expr r = simplify_vector_binary(ExprKind::Sub, a, b)) return r;
  if (!is_index_like(a)) return make_Sub(a, b);
  std::optional<LinearForm> f = combine(a, b, -1);
  return f ? simplify_linear(*f) : make_Sub(a, b);
}

Expr Simplifier::simplify_mul(const Expr& a, const Expr& b) {
  if (Expr r = fold_binary(ExprKind::Mul, a, b)) return r;
  if (Expr r = simplify_vector_binary(ExprKind::Mul, a, b)) return r;
  if (!is_index_like(a)) return make_Mul(a, b);
  const int64_t* cb = as_const_int(b);
  const int64_t* ca = as_const_int(a);
  if (!ca && !cb) return make_Mul(a, b);  // a product of two non-constants is an atom
  std::optional<LinearForm> f = to_linear(cb ? a : b);
  if (!f || !f->scale(cb ? *cb : *ca)) return cb ? make_Mul(a, b) : make_Mul(b, a);
  return simplify_linear(*f);
}

bool Simplifier::collect_spine(const Expr& e, int64_t scale, LinearForm& form) {
  if (const auto* add = e.as<AddNode>())
    return collect_spine(add->a, scale, form) && collect_spine(add->b, scale, form);
  if (const auto* sub = e.as<SubNode>()) {
    int64_t neg;
    return !__builtin_mul_overflow(scale, -1, &neg) && collect_spine(sub->a, scale, form) &&
           collect_spine(sub->b, neg, form);
  }
  if (const auto* mul = e.as<MulNode>()) {
    const int64_t* c = as_const_int(mul->b);
    const Expr& other = c ? mul->a : mul->b;
    if (!c) c = as_const_int(mul->a);
    int64_t s;
    if (c) return !__builtin_mul_overflow(scale, *c, &s) && collect_spine(other, s, form);
  }
  std::optional<LinearForm> f = to_linear(mutate(e));
  return f && form.add(*f, scale);
}

Expr Simplifier::mutate_spine(const Expr& self) {
  LinearForm form;
  form.dtype = self.dtype();
  if (!collect_spine(self, 1, form)) return Expr();
  Expr r = simplify_linear(form);
  return deep_equal(r, self) ? self : r;
}

Expr Simplifier::mutate_Add(const AddNode* op, const Expr& self) {
  if (is_index_like(self))
    if (Expr r = mutate_spine(self)) return r;
  return binary(op, self, [this](const Expr& a, const Expr& b) { return simplify_add(a, b); });
}

Expr Simplifier::mutate_Sub(const SubNode* op, const Expr& self) {
  if (is_index_like(self))
    if (Expr r = mutate_spine(self)) return r;
  return binary(op, self, [this](const Expr& a, const Expr& b) { return simplify_sub(a, b); });
}

Expr Simplifier::mutate_Mul(const MulNode* op, const Expr& self) {
  if (is_index_like(self) && (as_const_int(op->a) || as_const_int(op->b)))
    if (Expr r = mutate_spine(self)) return r;
  return binary(op, self, [this](const Expr& a, const Expr& b) { return simplify_mul(a, b); });
}

}  // namespace tessel::arith

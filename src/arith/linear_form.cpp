// Linear forms: extraction walks the additive spine (Add, Sub, Mul by a constant) and
// collects everything else as atoms; rebuilding prints positive terms first.
#include "arith/linear_form.h"

#include <algorithm>
#include <numeric>

#include "arith/analyzer.h"
#include "arith/const_fold.h"
#include "arith/expr_equal.h"

namespace tessel::arith {
namespace {

using namespace ir;

bool collect(const Expr& e, int64_t scale, LinearForm& form) {
  if (const int64_t* c = as_const_int(e)) {
    int64_t v;
    return !__builtin_mul_overflow(*c, scale, &v) &&
           !__builtin_add_overflow(form.constant, v, &form.constant);
  }
  if (const auto* add = e.as<AddNode>())
    return collect(add->a, scale, form) && collect(add->b, scale, form);
  if (const auto* sub = e.as<SubNode>()) {
    int64_t neg;
    return !__builtin_mul_overflow(scale, -1, &neg) && collect(sub->a, scale, form) &&
           collect(sub->b, neg, form);
  }
  if (const auto* mul = e.as<MulNode>()) {
    const int64_t* cb = as_const_int(mul->b);
    const int64_t* ca = as_const_int(mul->a);
    int64_t s;
    if (cb) return !__builtin_mul_overflow(scale, *cb, &s) && collect(mul->a, s, form);
    if (ca) return !__builtin_mul_overflow(scale, *ca, &s) && collect(mul->b, s, form);
  }
  return form.add_term(e, scale);
}

Expr term_expr(const Expr& atom, int64_t coef) {
  return coef == 1 ? atom : make_Mul(atom, make_wrapped_int(atom.dtype(), coef));
}

}  // namespace

bool LinearForm::add_term(const Expr& atom, int64_t coef) {
  if (coef == 0) return true;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (!deep_equal(terms[i].atom, atom)) continue;
    if (__builtin_add_overflow(terms[i].coef, coef, &terms[i].coef)) return false;
    if (terms[i].coef == 0) terms.erase(terms.begin() + static_cast<std::ptrdiff_t>(i));
    return true;
  }
  terms.push_back({atom, coef});
  return true;
}

bool LinearForm::add(const LinearForm& other, int64_t s) {
  for (const LinearTerm& t : other.terms) {
    int64_t c;
    if (__builtin_mul_overflow(t.coef, s, &c) || !add_term(t.atom, c)) return false;
  }
  int64_t c;
  return !__builtin_mul_overflow(other.constant, s, &c) &&
         !__builtin_add_overflow(constant, c, &constant);
}

bool LinearForm::scale(int64_t factor) {
  if (factor == 0) {
    terms.clear();
    constant = 0;
    return true;
  }
  for (LinearTerm& t : terms)
    if (__builtin_mul_overflow(t.coef, factor, &t.coef)) return false;
  return !__builtin_mul_overflow(constant, factor, &constant);
}

int64_t LinearForm::coef_gcd() const {
  int64_t g = 0;
  for (const LinearTerm& t : terms) g = std::gcd(g, t.coef);
  return g;
}

std::optional<LinearForm> to_linear(const Expr& e) {
  LinearForm form;
  form.dtype = e.dtype();
  if (!collect(e, 1, form)) return std::nullopt;
  return form;
}

std::optional<LinearForm> linear_difference(const Expr& a, const Expr& b) {
  std::optional<LinearForm> fa = to_linear(a);
  std::optional<LinearForm> fb = to_linear(b);
  if (!fa || !fb || !fa->add(*fb, -1)) return std::nullopt;
  return fa;
}

Expr from_linear(const LinearForm& form) {
  bool any_positive = std::any_of(form.terms.begin(), form.terms.end(),
                                  [](const LinearTerm& t) { return t.coef > 0; });
  Expr acc;
  if (!any_positive && form.constant != 0) acc = make_wrapped_int(form.dtype, form.constant);
  for (const LinearTerm& t : form.terms) {
    if (t.coef < 0) continue;
    Expr term = term_expr(t.atom, t.coef);
    acc = acc.defined() ? make_Add(acc, term) : term;
  }
  for (const LinearTerm& t : form.terms) {
    if (t.coef > 0) continue;
    if (!acc.defined()) acc = make_wrapped_int(form.dtype, 0);
    if (t.coef == ConstBound::kNegInf)
      acc = make_Add(acc, term_expr(t.atom, t.coef));
    else
      acc = make_Sub(acc, term_expr(t.atom, -t.coef));
  }
  if (!acc.defined()) return make_wrapped_int(form.dtype, 0);
  if (!any_positive || form.constant == 0) return acc;
  if (form.constant > 0 || form.constant == ConstBound::kNegInf)
    return make_Add(acc, make_wrapped_int(form.dtype, form.constant));
  return make_Sub(acc, make_wrapped_int(form.dtype, -form.constant));
}

}  // namespace tessel::arith

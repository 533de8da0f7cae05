// Simplifier core: bounds helpers, binary dispatch, and the rules for variables, casts,
// ramps and lets. The rule families live in simplify_*.cpp.
#include "arith/simplifier.h"

#include <algorithm>

#include "arith/const_bound.h"
#include "arith/const_fold.h"
#include "arith/interval_math.h"

namespace tessel::arith {

using namespace ir;

ConstBound Simplifier::bound(const Expr& e) {
  return const_bound_of(e, bindings_);
}

ConstBound Simplifier::linear_bound(const LinearForm& form) {
  ConstBound r = bound::point(form.constant);
  for (const LinearTerm& t : form.terms)
    r = bound::add(r, bound::mul(bound(t.atom), bound::point(t.coef)));
  return r;
}

ConstBound Simplifier::difference_bound(const Expr& a, const Expr& b) {
  std::optional<LinearForm> d = linear_difference(a, b);
  if (!d) return bound::everything();
  canonicalize(*d);
  return linear_bound(*d);
}

Expr Simplifier::fold_point(const Expr& e) {
  if (!is_index_like(e) || is_immediate(e)) return e;
  ConstBound b = bound(e);
  return b.is_const() ? make_wrapped_int(e.dtype(), b.min) : e;
}

void Simplifier::canonicalize(LinearForm& form) {
  // Each merge removes a Div atom, so this terminates; the cap only bounds the work.
  for (int i = 0; i < 16 && merge_div_mod(form); ++i) {
  }
}

Expr Simplifier::simplify_linear(const LinearForm& form) {
  LinearForm f = form;
  canonicalize(f);
  return from_linear(f);
}

// The identity e == (e / c)*c + e % c (floor semantics, c > 0), used both ways:
//   (e / c)*(c*m) + (e % c)*m  -> e*m            e.g. (f / n)*n + f % n -> f
//   e*m - (e / c)*(c*m)        -> (e % c)*m      e.g. x - (x / 4)*4 -> x % 4
// and for e = x / c1 written with its division folded: (x / (c1*c))*(c*m) + (e % c)*m -> e*m.
bool Simplifier::merge_div_mod(LinearForm& form) {
  for (size_t i = 0; i < form.terms.size(); ++i) {
    const auto* div = form.terms[i].atom.as<DivNode>();
    const int64_t* c = div ? as_const_int(div->b) : nullptr;
    if (!c || *c <= 0) continue;
    int64_t coef = form.terms[i].coef;
    // The same identity for y = x / c1 once (x / c1) / c2 was folded into x / (c1*c2):
    //   (x / (c1*c2))*(c2*m) + ((x / c1) % c2)*m -> (x / c1)*m
    // (the rows of a reshape over several dimensions: ((r/W/H)*H + r/W % H)*W + r % W -> r).
    LinearForm rest = form;
    rest.terms.erase(rest.terms.begin() + static_cast<std::ptrdiff_t>(i));
    auto nested = std::find_if(rest.terms.begin(), rest.terms.end(), [&](const LinearTerm& t) {
      const auto* mod = t.atom.as<ModNode>();
      const auto* inner = mod ? mod->a.as<DivNode>() : nullptr;
      const int64_t* c2 = mod ? as_const_int(mod->b) : nullptr;
      const int64_t* c1 = inner ? as_const_int(inner->b) : nullptr;
      int64_t divisor = 0, scaled = 0;
      return c1 && c2 && *c1 > 0 && *c2 > 0 && !__builtin_mul_overflow(*c1, *c2, &divisor) &&
             divisor == *c && !__builtin_mul_overflow(t.coef, *c2, &scaled) && scaled == coef &&
             deep_equal(inner->a, div->a);
    });
    if (nested != rest.terms.end()) {
      Expr y = nested->atom.as<ModNode>()->a;
      int64_t m = nested->coef;
      rest.terms.erase(nested);
      std::optional<LinearForm> ly = to_linear(y);
      if (ly && rest.add(*ly, m)) {
        form = rest;
        return true;
      }
    }
    if (coef % *c != 0) continue;
    int64_t m = coef / *c;
    Expr e = div->a;
    std::optional<LinearForm> le = to_linear(e);
    if (!le) continue;
    LinearForm next = form;
    next.terms.erase(next.terms.begin() + static_cast<std::ptrdiff_t>(i));
    auto mod_term = std::find_if(next.terms.begin(), next.terms.end(), [&](const LinearTerm& t) {
      const auto* mod = t.atom.as<ModNode>();
      return mod && t.coef == m && deep_equal(mod->a, e) && deep_equal(mod->b, div->b);
    });
    if (mod_term != next.terms.end()) {
      next.terms.erase(mod_term);
      if (!next.add(*le, m)) continue;
      form = next;
      return true;
    }
    bool contains_e = std::all_of(le->terms.begin(), le->terms.end(), [&](const LinearTerm& t) {
      return std::any_of(form.terms.begin(), form.terms.end(), [&](const LinearTerm& u) {
        return u.coef == -m * t.coef && deep_equal(u.atom, t.atom);
      });
    });
    if (!contains_e || le->terms.empty()) continue;
    std::optional<LinearForm> rem = to_linear(simplify_mod(e, div->b));
    if (!next.add(*le, m) || !rem || !next.add(*rem, -m)) continue;
    form = next;
    return true;
  }
  return false;
}

Expr Simplifier::simplify_binary(ExprKind kind, const Expr& a, const Expr& b) {
  switch (kind) {
    case ExprKind::Add:
      return simplify_add(a, b);
    case ExprKind::Sub:
      return simplify_sub(a, b);
    case ExprKind::Mul:
      return simplify_mul(a, b);
    case ExprKind::Div:
      return simplify_div(a, b);
    case ExprKind::Mod:
      return simplify_mod(a, b);
    case ExprKind::Min:
      return simplify_min(a, b);
    case ExprKind::Max:
      return simplify_max(a, b);
    case ExprKind::And:
      return simplify_and(a, b);
    case ExprKind::Or:
      return simplify_or(a, b);
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE:
      return simplify_cmp(kind, a, b);
    default:
      TESSEL_INTERNAL_ERROR("simplify_binary: ", kind_name(kind), " is not a binary kind");
  }
}

Expr Simplifier::mutate_Var(const VarNode* op, const Expr& self) {
  const VarInfo* info = bindings_.find(op);
  if (!info) return self;
  if (info->value.defined()) return mutate(info->value);
  if (info->has_bound && info->bound.is_const())
    return make_wrapped_int(op->dtype, info->bound.min);
  return self;
}

Expr Simplifier::mutate_Cast(const CastNode* op, const Expr& self) {
  Expr v = mutate(op->value);
  if (Expr r = fold_cast(op->dtype, v)) return r;
  if (v.dtype() == op->dtype) return v;
  return v.same_as(op->value) ? self : make_Cast(op->dtype, v);
}

Expr Simplifier::mutate_Ramp(const RampNode* op, const Expr& self) {
  Expr base = mutate(op->base);
  Expr stride = mutate(op->stride);
  if (is_zero(stride)) return make_Broadcast(base, op->lanes);
  if (base.same_as(op->base) && stride.same_as(op->stride)) return self;
  return make_Ramp(base, stride, op->lanes);
}

Expr Simplifier::mutate_Let(const LetNode* op, const Expr& self) {
  Expr value = mutate(op->value);
  const VarInfo* found = bindings_.find(op->var.get());
  std::optional<VarInfo> saved = found ? std::optional<VarInfo>(*found) : std::nullopt;
  // Cheap values are substituted; others stay bound, their bounds known in the body.
  bool inline_value = is_immediate(value) || value.as<VarNode>();
  bindings_.erase(op->var.get());
  if (inline_value)
    bindings_.set_value(op->var, value);
  else
    bindings_.set_bound(op->var, bound(value));
  Expr body = mutate(op->body);
  bindings_.restore(op->var, saved ? &*saved : nullptr);
  if (inline_value || !uses_var(body, op->var)) return body;
  if (value.same_as(op->value) && body.same_as(op->body)) return self;
  return make_Let(op->var, value, body);
}

}  // namespace tessel::arith

// Simplifier rules for vectors built from Ramp and Broadcast:
//   broadcast(x) op broadcast(y) -> broadcast(x op y)          (every binary op)
//   ramp(b, s) + broadcast(x) -> ramp(b + x, s)                 (and x + ramp, ramp - x)
//   ramp(b1, s1) +/- ramp(b2, s2) -> ramp(b1 +/- b2, s1 +/- s2)
//   ramp(b, s) * broadcast(x) -> ramp(b*x, s*x)
//   ramp(b, 0) -> broadcast(b)
#include "arith/const_fold.h"
#include "arith/simplifier.h"

namespace tessel::arith {

using namespace ir;

namespace {

Expr make_ramp(const Expr& base, const Expr& stride, int lanes) {
  return is_zero(stride) ? make_Broadcast(base, lanes) : make_Ramp(base, stride, lanes);
}

}  // namespace

Expr Simplifier::simplify_vector_binary(ExprKind kind, const Expr& a, const Expr& b) {
  if (!a.dtype().is_vector()) return Expr();
  const auto* ba = a.as<BroadcastNode>();
  const auto* bb = b.as<BroadcastNode>();
  if (ba && bb) return make_Broadcast(simplify_binary(kind, ba->value, bb->value), ba->lanes);
  const auto* ra = a.as<RampNode>();
  const auto* rb = b.as<RampNode>();
  switch (kind) {
    case ExprKind::Add:
      if (ra && rb)
        return make_ramp(simplify_add(ra->base, rb->base), simplify_add(ra->stride, rb->stride),
                         ra->lanes);
      if (ra && bb) return make_ramp(simplify_add(ra->base, bb->value), ra->stride, ra->lanes);
      if (ba && rb) return make_ramp(simplify_add(ba->value, rb->base), rb->stride, rb->lanes);
      return Expr();
    case ExprKind::Sub:
      if (ra && rb)
        return make_ramp(simplify_sub(ra->base, rb->base), simplify_sub(ra->stride, rb->stride),
                         ra->lanes);
      if (ra && bb) return make_ramp(simplify_sub(ra->base, bb->value), ra->stride, ra->lanes);
      if (ba && rb)
        return make_ramp(simplify_sub(ba->value, rb->base),
                         simplify_sub(make_wrapped_int(rb->stride.dtype(), 0), rb->stride),
                         rb->lanes);
      return Expr();
    case ExprKind::Mul:
      if (ra && bb)
        return make_ramp(simplify_mul(ra->base, bb->value), simplify_mul(ra->stride, bb->value),
                         ra->lanes);
      if (ba && rb)
        return make_ramp(simplify_mul(ba->value, rb->base), simplify_mul(ba->value, rb->stride),
                         rb->lanes);
      return Expr();
    default:
      return Expr();
  }
}

}  // namespace tessel::arith

// Folding of immediates. Integer arithmetic is done in 64 bits and wrapped to the width of
// the result type; unsigned 64-bit values use unsigned arithmetic.
#include "arith/const_fold.h"

#include <cmath>
#include <cstring>
#include <optional>

#include "arith/interval_math.h"

namespace tessel::arith {
namespace {

using namespace ir;

const FloatImmNode* as_float_imm(const Expr& e) {
  if (const auto* b = e.as<BroadcastNode>()) return b->value.as<FloatImmNode>();
  return e.as<FloatImmNode>();
}

int64_t wrap(DataType t, int64_t v) {
  if (t.bits >= 64) return v;
  uint64_t mask = (uint64_t{1} << t.bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (t.is_int() && (u >> (t.bits - 1)) & 1) u |= ~mask;  // sign-extend
  return static_cast<int64_t>(u);
}

std::optional<int64_t> fold_int(ExprKind kind, DataType t, int64_t a, int64_t b) {
  bool u64 = t.is_uint() && t.bits == 64;
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (kind) {
    case ExprKind::Add:
      return static_cast<int64_t>(ua + ub);
    case ExprKind::Sub:
      return static_cast<int64_t>(ua - ub);
    case ExprKind::Mul:
      return static_cast<int64_t>(ua * ub);
    case ExprKind::Div:
      if (b == 0) return std::nullopt;
      if (u64) return static_cast<int64_t>(ua / ub);
      return b == -1 ? static_cast<int64_t>(0 - ua) : bound::floordiv(a, b);  // MIN / -1 wraps
    case ExprKind::Mod:
      if (b == 0) return std::nullopt;
      return u64 ? static_cast<int64_t>(ua % ub) : bound::floormod(a, b);
    case ExprKind::Min:
      return u64 ? (ua < ub ? a : b) : std::min(a, b);
    case ExprKind::Max:
      return u64 ? (ua < ub ? b : a) : std::max(a, b);
    case ExprKind::EQ:
      return a == b;
    case ExprKind::NE:
      return a != b;
    case ExprKind::LT:
      return u64 ? ua < ub : a < b;
    case ExprKind::LE:
      return u64 ? ua <= ub : a <= b;
    case ExprKind::GT:
      return u64 ? ua > ub : a > b;
    case ExprKind::GE:
      return u64 ? ua >= ub : a >= b;
    case ExprKind::And:
      return (a != 0) && (b != 0);
    case ExprKind::Or:
      return (a != 0) || (b != 0);
    default:
      return std::nullopt;
  }
}

std::optional<double> fold_float(ExprKind kind, double a, double b) {
  switch (kind) {
    case ExprKind::Add:
      return a + b;
    case ExprKind::Sub:
      return a - b;
    case ExprKind::Mul:
      return a * b;
    case ExprKind::Div:
      return a / b;  // IEEE: true division, x/0 is inf or nan
    case ExprKind::Min:  // NaN-propagating, like ir's Min and Max
      return std::isnan(a) || std::isnan(b) ? a + b : std::fmin(a, b);
    case ExprKind::Max:
      return std::isnan(a) || std::isnan(b) ? a + b : std::fmax(a, b);
    case ExprKind::EQ:
      return a == b;
    case ExprKind::NE:
      return a != b;
    case ExprKind::LT:
      return a < b;
    case ExprKind::LE:
      return a <= b;
    case ExprKind::GT:
      return a > b;
    case ExprKind::GE:
      return a >= b;
    default:
      return std::nullopt;  // Mod of floats is not folded
  }
}

/// `v` rounded to the precision of the float type `t` (float immediates hold values of
/// their type).
double round_to(DataType t, double v) {
  if (t.code == TypeCode::BFloat) {
    float f = static_cast<float>(v);
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    if (std::isnan(f)) return f;
    bits = (bits + 0x7fff + ((bits >> 16) & 1)) & 0xffff0000u;  // to nearest even
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
  switch (t.bits) {
    case 16: return static_cast<double>(static_cast<_Float16>(v));
    case 32: return static_cast<double>(static_cast<float>(v));
    default: return v;
  }
}

bool is_comparison(ExprKind k) {
  return k == ExprKind::EQ || k == ExprKind::NE || k == ExprKind::LT || k == ExprKind::LE ||
         k == ExprKind::GT || k == ExprKind::GE;
}

}  // namespace

Expr make_wrapped_int(DataType dtype, int64_t value) {
  return make_int(wrap(dtype, value), dtype);
}

bool is_immediate(const Expr& e) {
  return as_const_int(e) || as_float_imm(e);
}

Expr fold_binary(ExprKind kind, const Expr& a, const Expr& b) {
  DataType t = a.dtype();
  DataType result = is_comparison(kind) ? DataType::Bool(t.lanes) : t;
  const int64_t* ia = as_const_int(a);
  const int64_t* ib = as_const_int(b);
  if (ia && ib) {
    std::optional<int64_t> r = fold_int(kind, t, *ia, *ib);
    return r ? make_wrapped_int(result, *r) : Expr();
  }
  const FloatImmNode* fa = as_float_imm(a);
  const FloatImmNode* fb = as_float_imm(b);
  if (!fa || !fb) return Expr();
  std::optional<double> r = fold_float(kind, fa->value, fb->value);
  if (!r) return Expr();
  if (is_comparison(kind)) return make_wrapped_int(result, static_cast<int64_t>(*r));
  return make_float(round_to(t, *r), result);
}

Expr fold_not(const Expr& a) {
  const int64_t* v = as_const_int(a);
  return v ? make_wrapped_int(a.dtype(), *v == 0) : Expr();
}

Expr fold_cast(DataType dtype, const Expr& a) {
  DataType from = a.dtype();
  if (const int64_t* v = as_const_int(a)) {
    if (dtype.is_float()) {
      double d = from.is_uint() && from.bits == 64 ? static_cast<double>(static_cast<uint64_t>(*v))
                                                   : static_cast<double>(*v);
      return make_float(round_to(dtype, d), dtype);
    }
    if (dtype.is_bool()) return make_wrapped_int(dtype, *v != 0);
    if (dtype.is_integer()) return make_wrapped_int(dtype, *v);
    return Expr();
  }
  const FloatImmNode* f = as_float_imm(a);
  if (!f) return Expr();
  if (dtype.is_float())
    return make_float(round_to(dtype, f->value), dtype);
  if (dtype.is_bool()) return make_wrapped_int(dtype, f->value != 0.0);
  // Float to integer truncates toward zero; out-of-range values are not folded.
  double t = std::trunc(f->value);
  ConstBound range = bound::of_type(dtype.element());
  if (!(t >= -9.2e18 && t <= 9.2e18)) return Expr();
  int64_t i = static_cast<int64_t>(t);
  if (i < range.min || i > range.max) return Expr();
  return make_wrapped_int(dtype, i);
}

}  // namespace tessel::arith

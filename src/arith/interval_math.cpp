// Saturating interval arithmetic for constant bounds: ends equal to kNegInf / kPosInf are
// infinite; finite results beyond int64 saturate to them.
#include "arith/interval_math.h"

#include <algorithm>

namespace tessel::arith::bound {
namespace {

constexpr int64_t kNegInf = ConstBound::kNegInf;
constexpr int64_t kPosInf = ConstBound::kPosInf;

bool is_inf(int64_t v) {
  return v == kNegInf || v == kPosInf;
}

int64_t clamp(__int128 v) {
  if (v >= static_cast<__int128>(kPosInf)) return kPosInf;
  if (v <= static_cast<__int128>(kNegInf)) return kNegInf;
  return static_cast<int64_t>(v);
}

int64_t neg(int64_t v) {
  if (v == kNegInf) return kPosInf;
  if (v == kPosInf) return kNegInf;
  return -v;
}

// Sum of two ends; an infinite operand wins (lower ends are never +inf, upper never -inf).
int64_t add_end(int64_t a, int64_t b) {
  if (is_inf(a)) return a;
  if (is_inf(b)) return b;
  return clamp(static_cast<__int128>(a) + b);
}

int64_t mul_end(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (is_inf(a) || is_inf(b)) return (a < 0) == (b < 0) ? kPosInf : kNegInf;
  return clamp(static_cast<__int128>(a) * b);
}

// floor(a / b) for b > 0, either possibly infinite.
int64_t div_end(int64_t a, int64_t b) {
  if (is_inf(a)) return a;
  if (b == kPosInf) return a >= 0 ? 0 : -1;
  return floordiv(a, b);
}

// floor(a / b) over a in `a`, b in `b` with b.min > 0.
ConstBound div_positive(const ConstBound& a, const ConstBound& b) {
  int64_t lo = a.min >= 0 ? div_end(a.min, b.max) : div_end(a.min, b.min);
  int64_t hi = a.max >= 0 ? div_end(a.max, b.min) : div_end(a.max, b.max);
  return {lo, hi};
}

}  // namespace

int64_t floordiv(int64_t a, int64_t b) {
  if (b == -1) return clamp(-static_cast<__int128>(a));
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t floormod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

ConstBound of_type(ir::DataType t) {
  if (t.is_bool()) return {0, 1};
  if (t.is_int() && t.bits < 64) {
    int64_t half = int64_t{1} << (t.bits - 1);
    return {-half, half - 1};
  }
  if (t.is_uint()) return {0, t.bits < 63 ? (int64_t{1} << t.bits) - 1 : kPosInf};
  return everything();
}

ConstBound add(const ConstBound& a, const ConstBound& b) {
  return {add_end(a.min, b.min), add_end(a.max, b.max)};
}

ConstBound negate(const ConstBound& a) {
  return {neg(a.max), neg(a.min)};
}

ConstBound sub(const ConstBound& a, const ConstBound& b) {
  return add(a, negate(b));
}

ConstBound mul(const ConstBound& a, const ConstBound& b) {
  int64_t c[4] = {mul_end(a.min, b.min), mul_end(a.min, b.max), mul_end(a.max, b.min),
                  mul_end(a.max, b.max)};
  return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}

ConstBound floordiv(const ConstBound& a, const ConstBound& divisor) {
  ConstBound b = divisor;
  if (b.min == 0) b.min = 1;  // division by zero is undefined: the divisor is nonzero
  if (b.max == 0) b.max = -1;
  if (b.min > b.max) return everything();
  if (b.min > 0) return div_positive(a, b);
  if (b.max < 0) return div_positive(negate(a), negate(b));  // floor(a/b) == floor(-a/-b)
  // The divisor takes both signs: |a / b| <= |a|.
  int64_t m = std::max(neg(std::min<int64_t>(a.min, 0)), std::max<int64_t>(a.max, 0));
  return {neg(m), m};
}

ConstBound floormod(const ConstBound& a, const ConstBound& divisor) {
  ConstBound b = divisor;
  if (b.min == 0) b.min = 1;
  if (b.max == 0) b.max = -1;
  if (b.min > b.max) return everything();
  if (b.min > 0) {
    if (a.min >= 0 && a.max < b.min) return a;  // x % y == x for 0 <= x < y
    if (b.min == b.max && a.bounded() && floordiv(a.min, b.min) == floordiv(a.max, b.min))
      return {floormod(a.min, b.min), floormod(a.max, b.min)};  // within one period
    int64_t hi = b.max == kPosInf ? kPosInf : b.max - 1;
    if (a.min >= 0) hi = std::min(hi, a.max);
    return {0, hi};
  }
  if (b.max < 0) {
    if (a.max <= 0 && a.min > b.max) return a;
    int64_t lo = b.min == kNegInf ? kNegInf : b.min + 1;
    if (a.max <= 0) lo = std::max(lo, a.min);
    return {lo, 0};
  }
  return {b.min == kNegInf ? kNegInf : b.min + 1, b.max == kPosInf ? kPosInf : b.max - 1};
}

ConstBound min(const ConstBound& a, const ConstBound& b) {
  return {std::min(a.min, b.min), std::min(a.max, b.max)};
}

ConstBound max(const ConstBound& a, const ConstBound& b) {
  return {std::max(a.min, b.min), std::max(a.max, b.max)};
}

ConstBound unite(const ConstBound& a, const ConstBound& b) {
  return {std::min(a.min, b.min), std::max(a.max, b.max)};
}

ConstBound intersect(const ConstBound& a, const ConstBound& b) {
  ConstBound r{std::max(a.min, b.min), std::min(a.max, b.max)};
  return r.min <= r.max ? r : a;
}

}  // namespace tessel::arith::bound

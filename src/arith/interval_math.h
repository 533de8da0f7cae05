// Arithmetic on constant intervals (ConstBound) with saturation at the infinite ends.
//
// Every operation returns an interval containing all results of the operation applied to
// members of the operands (mathematical integers; no overflow is assumed, as in ir/expr.h).
// Division and modulo are floor operations; a divisor interval is assumed not to hit zero.
#pragma once

#include "arith/analyzer.h"
#include "ir/type.h"

namespace tessel::arith::bound {

/// The interval of every value.
inline ConstBound everything() {
  return {};
}
/// The interval {v}.
inline ConstBound point(int64_t v) {
  return {v, v};
}
/// The values of an integer or bool type (everything for int64 and non-integer types).
ConstBound of_type(ir::DataType dtype);

ConstBound add(const ConstBound& a, const ConstBound& b);
ConstBound sub(const ConstBound& a, const ConstBound& b);
ConstBound mul(const ConstBound& a, const ConstBound& b);
ConstBound floordiv(const ConstBound& a, const ConstBound& b);
ConstBound floormod(const ConstBound& a, const ConstBound& b);
ConstBound min(const ConstBound& a, const ConstBound& b);
ConstBound max(const ConstBound& a, const ConstBound& b);
ConstBound negate(const ConstBound& a);
/// The smallest interval holding both.
ConstBound unite(const ConstBound& a, const ConstBound& b);
/// The common part (a is kept when they do not meet, which only happens for dead code).
ConstBound intersect(const ConstBound& a, const ConstBound& b);

/// Floor division and modulo of int64 values (b != 0).
int64_t floordiv(int64_t a, int64_t b);
int64_t floormod(int64_t a, int64_t b);

}  // namespace tessel::arith::bound

// Arithmetic analysis of integer index expressions (tessel::arith).
//
// The Analyzer knows the ranges of loop variables (bound with `bind`) and answers:
//  - simplify(e): an equivalent, simpler expression (constant folding, canonical linear
//    forms, floor div/mod rules, min/max and comparison folding under known bounds);
//  - const_bound(e): constant lower/upper bounds of an integer expression;
//  - can_prove(cond): whether a bool expression is true for every value in the bound ranges;
//  - eval_interval(e, dom): the symbolic interval an expression covers when some variables
//    range over symbolic intervals (bound inference of tensor regions uses this).
// Semantics of Div/Mod are floor division/modulo as documented in ir/expr.h.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <unordered_map>

#include "ir/expr.h"

namespace tessel::arith {

using ir::Expr;
using ir::Var;

/// Constant bounds [min, max], inclusive; kNegInf / kPosInf mean unbounded.
struct ConstBound {
  static constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
  int64_t min = kNegInf;
  int64_t max = kPosInf;
  bool is_const() const { return min == max && min != kNegInf; }
  bool bounded() const { return min != kNegInf && max != kPosInf; }
};

/// A symbolic inclusive interval [min, max]; an undefined end means unbounded.
struct IntervalSet {
  Expr min;
  Expr max;
  static IntervalSet point(const Expr& e) { return {e, e}; }
  /// [min, min + extent - 1].
  static IntervalSet from_range(const Expr& min, const Expr& extent);
  bool bounded() const { return min.defined() && max.defined(); }
};

/// Symbolic domains of variables, keyed by variable identity.
using VarDomain = std::unordered_map<const ir::VarNode*, IntervalSet>;

class Analyzer {
 public:
  Analyzer();
  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  /// Declares var in [min, min + extent). Constant bounds of min/extent are used.
  void bind(const Var& var, const Expr& min, const Expr& extent);
  /// Declares var == value (a let binding); value is substituted when simplifying.
  void bind_value(const Var& var, const Expr& value);
  /// Forgets what `bind`/`bind_value` said of var.
  void unbind(const Var& var);

  Expr simplify(const Expr& e);
  ConstBound const_bound(const Expr& e);
  /// True only when `cond` (a scalar bool) provably holds; false means "not proven".
  bool can_prove(const Expr& cond);
  /// The interval covered by integer expression `e` when variables in `dom` range over
  /// their intervals (others are held fixed). Ends are simplified.
  IntervalSet eval_interval(const Expr& e, const VarDomain& dom);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Simplify with no knowledge of variable ranges.
Expr simplify(const Expr& e);

}  // namespace tessel::arith

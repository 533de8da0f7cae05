// The Analyzer: owns the variable facts and routes each question to its sub-analyzer
// (const_bound.cpp, simplifier.h, eval_interval.cpp).
#include "arith/analyzer.h"

#include "arith/bindings.h"
#include "arith/const_bound.h"
#include "arith/eval_interval.h"
#include "arith/interval_math.h"
#include "arith/simplifier.h"
#include "ir/functor.h"
#include "support/error.h"

namespace tessel::arith {

using namespace ir;

IntervalSet IntervalSet::from_range(const Expr& min, const Expr& extent) {
  return {min, make_Sub(make_Add(min, extent), make_const(min.dtype(), 1))};
}

namespace {

// a < b (or a <= b) holds when the upper end of a - b, relaxed over the symbolic loop ranges
// one variable at a time from the innermost loop out, is provably negative (at most zero):
// with j in [0, n - i), j + i - n is at most (n - i - 1) + i - n = -1.
bool prove_by_symbolic_ranges(Analyzer& analyzer, const Bindings& bindings, const Expr& cond) {
  Expr a, b;
  bool strict = true;
  if (const auto* lt = cond.as<LTNode>()) {
    a = lt->a;
    b = lt->b;
  } else if (const auto* le = cond.as<LENode>()) {
    a = le->a;
    b = le->b;
    strict = false;
  }
  if (!a.defined() || !a.dtype().is_integer() || !a.dtype().is_scalar()) return false;
  std::vector<const VarInfo*> ranges = bindings.symbolic_ranges();
  if (ranges.empty()) return false;
  Expr upper = make_Sub(a, b);
  for (const VarInfo* info : ranges) {
    if (!uses_var(upper, info->var)) continue;
    upper = analyzer.eval_interval(upper, {{info->var.get(), info->range}}).max;
    if (!upper.defined()) return false;
  }
  ConstBound u = analyzer.const_bound(upper);
  return strict ? u.max < 0 : u.max <= 0;
}

}  // namespace

struct Analyzer::Impl {
  Bindings bindings;
};

Analyzer::Analyzer() : impl_(std::make_unique<Impl>()) {}
Analyzer::~Analyzer() = default;

void Analyzer::bind(const Var& var, const Expr& min, const Expr& extent) {
  TESSEL_ICHECK(var.defined() && min.defined() && extent.defined(), "bind: undefined operand");
  ConstBound lo = const_bound(min);
  ConstBound ext = const_bound(extent);
  ConstBound last = bound::sub(bound::add(lo, ext), bound::point(1));
  ConstBound range{lo.min, std::max(last.max, lo.min)};  // an empty loop binds nothing useful
  impl_->bindings.erase(var.get());
  impl_->bindings.set_bound(var, range);
  if (!as_const_int(min) || !as_const_int(extent))
    impl_->bindings.set_range(
        var,
        {simplify(min), simplify(make_Sub(make_Add(min, extent), make_const(min.dtype(), 1)))});
}

void Analyzer::bind_value(const Var& var, const Expr& value) {
  TESSEL_ICHECK(var.defined() && value.defined(), "bind_value: undefined operand");
  impl_->bindings.erase(var.get());
  impl_->bindings.set_value(var, value);
}

void Analyzer::unbind(const Var& var) {
  impl_->bindings.erase(var.get());
}

Expr Analyzer::simplify(const Expr& e) {
  TESSEL_ICHECK(e.defined(), "simplify: undefined expression");
  return Simplifier(impl_->bindings).mutate(e);
}

ConstBound Analyzer::const_bound(const Expr& e) {
  TESSEL_ICHECK(e.defined(), "const_bound: undefined expression");
  return const_bound_of(simplify(e), impl_->bindings);
}

bool Analyzer::can_prove(const Expr& cond) {
  TESSEL_ICHECK(cond.defined() && cond.dtype().is_bool(), "can_prove: needs a bool expression");
  Expr s = simplify(cond);
  if (const int64_t* v = as_const_int(s)) return *v != 0;
  if (const auto* op = s.as<AndNode>()) return can_prove(op->a) && can_prove(op->b);
  if (const auto* op = s.as<OrNode>()) return can_prove(op->a) || can_prove(op->b);
  return prove_by_symbolic_ranges(*this, impl_->bindings, s);
}

IntervalSet Analyzer::eval_interval(const Expr& e, const VarDomain& dom) {
  TESSEL_ICHECK(e.defined(), "eval_interval: undefined expression");
  return eval_interval_of(e, dom, impl_->bindings);
}

Expr simplify(const Expr& e) {
  return Analyzer().simplify(e);
}

}  // namespace tessel::arith

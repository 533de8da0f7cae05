// Fuzz test of the arithmetic layer against direct evaluation (ir/interpreter.h):
// random integer expressions over variables with random ranges are simplified under the
// Analyzer's bindings; the original and simplified forms must agree at random points of the
// ranges, const_bound must contain every value, and eval_interval must contain the value
// at every sampled point of a variable's symbolic domain.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "arith/analyzer.h"
#include "ir/interpreter.h"
#include "ir/printer.h"

namespace tessel::arith {
namespace {

using namespace ir;

constexpr int kCases = 4000;
constexpr int kPoints = 24;

struct Range {
  int64_t lo, hi;  // inclusive
};

class Fuzzer {
 public:
  explicit Fuzzer(uint64_t seed) : rng_(seed) {
    for (int i = 0; i < 3; ++i) vars_.push_back(Var(std::string(1, "xyz"[i])));
    vars_.push_back(Var("p"));  // strictly positive: a safe divisor
  }

  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool coin(int percent) { return uniform(1, 100) <= percent; }

  /// Picks fresh ranges for the variables.
  void new_ranges() {
    ranges_.clear();
    for (size_t i = 0; i + 1 < vars_.size(); ++i) {
      int64_t lo = uniform(-20, 20);
      ranges_.push_back({lo, lo + uniform(0, 30)});
    }
    ranges_.push_back({1, uniform(1, 9)});
  }

  Expr int_expr(int depth) {
    if (depth == 0 || coin(20)) return leaf();
    switch (uniform(0, 11)) {
      case 0:
        return int_expr(depth - 1) + int_expr(depth - 1);
      case 1:
        return int_expr(depth - 1) - int_expr(depth - 1);
      case 2:
        return int_expr(depth - 1) * (coin(70) ? Expr(uniform(-6, 6)) : leaf());
      case 3:
        return int_expr(depth - 1) / divisor();
      case 4:
        return int_expr(depth - 1) % divisor();
      case 5:
        return min(int_expr(depth - 1), int_expr(depth - 1));
      case 6:
        return max(int_expr(depth - 1), int_expr(depth - 1));
      case 7:
        return select(bool_expr(depth - 1), int_expr(depth - 1), int_expr(depth - 1));
      case 8:
        return int_expr(depth - 1) * 4 + int_expr(depth - 1);
      case 9: {  // e - (e / c)*c, the expanded form of e % c
        Expr e = int_expr(depth - 1);
        Expr c = Expr(uniform(1, 8));
        return e - e / c * c + int_expr(depth - 1);
      }
      case 10: {  // (e / c)*c + e % c, the expanded form of e
        Expr e = int_expr(depth - 1);
        Expr c = Expr(uniform(1, 8));
        return e / c * c * uniform(1, 3) + e % c * uniform(1, 3);
      }
      default:
        return (int_expr(depth - 1) * 8 + int_expr(depth - 1)) / 8;
    }
  }

  Expr bool_expr(int depth) {
    if (depth > 0 && coin(25)) {
      Expr a = bool_expr(depth - 1), b = bool_expr(depth - 1);
      switch (uniform(0, 2)) {
        case 0:
          return a && b;
        case 1:
          return a || b;
        default:
          return !a;
      }
    }
    Expr a = int_expr(depth), b = int_expr(depth);
    switch (uniform(0, 5)) {
      case 0:
        return a < b;
      case 1:
        return a <= b;
      case 2:
        return a > b;
      case 3:
        return a >= b;
      case 4:
        return a == b;
      default:
        return a != b;
    }
  }

  /// A point in the ranges, as an interpreter environment.
  Env point() {
    Env env;
    for (size_t i = 0; i < vars_.size(); ++i)
      env.bind(vars_[i], Value::from_int(DataType::Index(), uniform(ranges_[i].lo, ranges_[i].hi)));
    return env;
  }

  void bind_all(Analyzer& a) {
    for (size_t i = 0; i < vars_.size(); ++i)
      a.bind(vars_[i], Expr(ranges_[i].lo), Expr(ranges_[i].hi - ranges_[i].lo + 1));
  }

  const std::vector<Var>& vars() const { return vars_; }
  const std::vector<Range>& ranges() const { return ranges_; }

 private:
  Expr leaf() {
    if (coin(35)) return Expr(uniform(-10, 10));
    return vars_[uniform(0, static_cast<int64_t>(vars_.size()) - 1)];
  }

  Expr divisor() {
    switch (uniform(0, 3)) {
      case 0:
        return vars_.back();
      case 1:
        return vars_.back() + Expr(uniform(0, 3));
      case 2:
        return Expr(-uniform(1, 9));
      default:
        return Expr(uniform(1, 16));
    }
  }

  std::mt19937_64 rng_;
  std::vector<Var> vars_;
  std::vector<Range> ranges_;
};

int64_t eval_int(const Expr& e, const Env& env) {
  return evaluate(e, env).int_at();
}

TEST(SimplifyFuzz, IntegerExpressionsKeepTheirValue) {
  Fuzzer fz(20240611);
  int changed = 0;
  for (int c = 0; c < kCases; ++c) {
    fz.new_ranges();
    Expr e = fz.int_expr(4);
    Analyzer a;
    fz.bind_all(a);
    Expr s = a.simplify(e);
    ConstBound b = a.const_bound(e);
    changed += !s.same_as(e);
    for (int k = 0; k < kPoints; ++k) {
      Env env = fz.point();
      int64_t want = eval_int(e, env);
      ASSERT_EQ(eval_int(s, env), want) << "case " << c << ": " << e << "\n  simplified: " << s;
      ASSERT_TRUE(b.min <= want && want <= b.max) << "case " << c << ": " << e << " = " << want
                                                  << " outside [" << b.min << ", " << b.max << "]";
    }
  }
  EXPECT_GT(changed, kCases / 2);  // the fuzzer exercises the rules, not just identities
}

TEST(SimplifyFuzz, ConditionsKeepTheirValue) {
  Fuzzer fz(77);
  for (int c = 0; c < kCases; ++c) {
    fz.new_ranges();
    Expr e = fz.bool_expr(3);
    Analyzer a;
    fz.bind_all(a);
    Expr s = a.simplify(e);
    bool proven = a.can_prove(e);
    for (int k = 0; k < kPoints; ++k) {
      Env env = fz.point();
      int64_t want = eval_int(e, env);
      ASSERT_EQ(eval_int(s, env), want) << "case " << c << ": " << e << "\n  simplified: " << s;
      if (proven) {
        ASSERT_EQ(want, 1) << "case " << c << ": proved false condition " << e;
      }
    }
  }
}

TEST(SimplifyFuzz, SimplifyIsIdempotent) {
  Fuzzer fz(4242);
  for (int c = 0; c < kCases; ++c) {
    fz.new_ranges();
    Expr e = fz.int_expr(4);
    Analyzer a;
    fz.bind_all(a);
    Expr once = a.simplify(e);
    Expr twice = a.simplify(once);
    ASSERT_EQ(to_string(once), to_string(twice)) << "case " << c << ": " << e;
  }
}

// Nested loops with symbolic ranges: y in [x*m + d0, x*m + d0 + e0), z in [y - x + d1, ...
// + x + e1). can_prove must never hold where a sampled point of the nest says otherwise.
TEST(SimplifyFuzz, CanProveUnderSymbolicRangesIsSound) {
  Fuzzer fz(555);
  const Var& x = fz.vars()[0];
  const Var& y = fz.vars()[1];
  const Var& z = fz.vars()[2];
  const Var& p = fz.vars()[3];
  int proven = 0;
  for (int c = 0; c < kCases; ++c) {
    fz.new_ranges();
    int64_t m = fz.uniform(-1, 2), d0 = fz.uniform(-3, 3), e0 = fz.uniform(1, 6);
    int64_t d1 = fz.uniform(-3, 3), e1 = fz.uniform(1, 4);
    Expr y_min = x * m + d0, z_min = y - x + d1;
    Expr z_extent = fz.coin(50) ? Expr(e1) : x - Expr(fz.ranges()[0].lo) + e1;
    Analyzer a;
    a.bind(x, Expr(fz.ranges()[0].lo), Expr(fz.ranges()[0].hi - fz.ranges()[0].lo + 1));
    a.bind(p, Expr(1), Expr(fz.ranges()[3].hi));
    a.bind(y, y_min, Expr(e0));
    a.bind(z, z_min, z_extent);
    Expr e = fz.bool_expr(2);
    if (!a.can_prove(e)) continue;
    ++proven;
    for (int k = 0; k < kPoints; ++k) {
      Env env;
      int64_t xv = fz.uniform(fz.ranges()[0].lo, fz.ranges()[0].hi);
      env.bind(x, Value::from_int(DataType::Index(), xv));
      env.bind(p, Value::from_int(DataType::Index(), fz.uniform(1, fz.ranges()[3].hi)));
      int64_t ylo = eval_int(y_min, env);
      env.bind(y, Value::from_int(DataType::Index(), fz.uniform(ylo, ylo + e0 - 1)));
      int64_t zlo = eval_int(z_min, env), zext = eval_int(z_extent, env);
      env.bind(z, Value::from_int(DataType::Index(), fz.uniform(zlo, zlo + zext - 1)));
      ASSERT_EQ(eval_int(e, env), 1) << "case " << c << ": proved " << e;
    }
  }
  EXPECT_GT(proven, kCases / 20);
}

// Vectors of 4 lanes built from ramps and broadcasts of random scalars, combined lane-wise.
TEST(SimplifyFuzz, VectorExpressionsKeepTheirValue) {
  Fuzzer fz(31337);
  constexpr int kLanes = 4;
  for (int c = 0; c < kCases / 4; ++c) {
    fz.new_ranges();
    std::function<Expr(int)> vec = [&](int depth) -> Expr {
      if (depth == 0 || fz.coin(30)) {
        if (fz.coin(50)) return make_Broadcast(fz.int_expr(1), kLanes);
        return make_Ramp(fz.int_expr(1), Expr(fz.uniform(-3, 3)), kLanes);
      }
      Expr a = vec(depth - 1), b = vec(depth - 1);
      switch (fz.uniform(0, 5)) {
        case 0:
          return a + b;
        case 1:
          return a - b;
        case 2:
          return a * make_Broadcast(Expr(fz.uniform(-4, 4)), kLanes);
        case 3:
          return min(a, b);
        case 4:
          return a / make_Broadcast(Expr(fz.uniform(1, 5)), kLanes);
        default:
          return select(a < b, a, b);
      }
    };
    Expr e = vec(3);
    Analyzer a;
    fz.bind_all(a);
    Expr s = a.simplify(e);
    ASSERT_EQ(s.dtype(), e.dtype());
    for (int k = 0; k < kPoints / 4; ++k) {
      Env env = fz.point();
      Value want = evaluate(e, env), got = evaluate(s, env);
      for (int lane = 0; lane < kLanes; ++lane)
        ASSERT_EQ(got.int_at(lane), want.int_at(lane))
            << "case " << c << " lane " << lane << ": " << e << "\n  simplified: " << s;
    }
  }
}

// x ranges over [y + d0, y + d1] (symbolic in y); y and the others are bound constants.
TEST(SimplifyFuzz, EvalIntervalContainsSampledValues) {
  Fuzzer fz(99);
  const Var& x = fz.vars()[0];
  const Var& y = fz.vars()[1];
  for (int c = 0; c < kCases; ++c) {
    fz.new_ranges();
    Expr e = fz.int_expr(4);
    int64_t d0 = fz.uniform(-5, 5), d1 = d0 + fz.uniform(0, 8);
    Analyzer a;
    for (size_t i = 1; i < fz.vars().size(); ++i)
      a.bind(fz.vars()[i], Expr(fz.ranges()[i].lo),
             Expr(fz.ranges()[i].hi - fz.ranges()[i].lo + 1));
    VarDomain dom{{x.get(), IntervalSet{y + Expr(d0), y + Expr(d1)}}};
    IntervalSet s = a.eval_interval(e, dom);
    for (int k = 0; k < kPoints; ++k) {
      Env env = fz.point();
      int64_t yv = env.lookup(y.get()).int_at();
      env.bind(x, Value::from_int(DataType::Index(), yv + fz.uniform(d0, d1)));
      int64_t v = eval_int(e, env);
      if (s.min.defined()) {
        ASSERT_LE(eval_int(s.min, env), v) << "case " << c << ": " << e << " min " << s.min;
      }
      if (s.max.defined()) {
        ASSERT_GE(eval_int(s.max, env), v) << "case " << c << ": " << e << " max " << s.max;
      }
    }
  }
}

}  // namespace
}  // namespace tessel::arith

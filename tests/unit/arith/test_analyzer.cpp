// Analyzer API: binding, const_bound, can_prove, eval_interval and simplify basics.
#include <gtest/gtest.h>

#include "arith/analyzer.h"
#include "ir/printer.h"

namespace tessel::arith {
namespace {

using ir::to_string;

TEST(Analyzer, ConstantFolding) {
  Analyzer a;
  EXPECT_EQ(to_string(a.simplify(Expr(3) + 4 * 5)), "23");
  EXPECT_EQ(to_string(a.simplify(Expr(-7) / 2)), "-4");
  EXPECT_EQ(to_string(a.simplify(Expr(-7) % 2)), "1");
}

TEST(Analyzer, LinearCancellation) {
  Var x("x"), y("y");
  Analyzer a;
  EXPECT_EQ(to_string(a.simplify((x * 4 + y) - x * 4)), "y");
  EXPECT_EQ(to_string(a.simplify(x + 1 - 1)), "x");
}

TEST(Analyzer, ConstBoundOfIndex) {
  Var i("i"), j("j");
  Analyzer a;
  a.bind(i, 0, 128);
  a.bind(j, 0, 8);
  ConstBound b = a.const_bound(i * 8 + j);
  EXPECT_EQ(b.min, 0);
  EXPECT_EQ(b.max, 1023);
}

TEST(Analyzer, CanProve) {
  Var i("i"), j("j");
  Analyzer a;
  a.bind(i, 0, 128);
  a.bind(j, 0, 8);
  EXPECT_TRUE(a.can_prove(i * 8 + j < 1024));
  EXPECT_FALSE(a.can_prove(i * 8 + j < 1000));
  EXPECT_TRUE(a.can_prove(i >= 0 && j <= 7));
  EXPECT_TRUE(a.can_prove(i < 0 || j <= 7));
  EXPECT_FALSE(a.can_prove(i < 0 || j < 7));
}

TEST(Analyzer, EvalIntervalOfSplitIndex) {
  Var io("i_outer"), ii("i_inner");
  Analyzer a;
  VarDomain dom{{ii.get(), IntervalSet::from_range(0, 4)}};
  IntervalSet s = a.eval_interval(io * 4 + ii, dom);
  EXPECT_EQ(to_string(s.min), "i_outer * 4");
  EXPECT_EQ(to_string(s.max), "i_outer * 4 + 3");
}

}  // namespace
}  // namespace tessel::arith

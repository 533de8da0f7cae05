// Simplifier, Min/Max family: constant folding, bounds-based selection, absorption and
// nested constants.
#include <gtest/gtest.h>

#include "arith/analyzer.h"
#include "ir/printer.h"

namespace tessel::arith {
namespace {

using namespace ir;

std::string simp(const Expr& e) {
  return to_string(simplify(e));
}

TEST(SimplifyMinMax, ConstantOffsetsOfOneExpression) {
  Var x("x");
  EXPECT_EQ(simp(min(x + 1, x + 3)), "x + 1");
  EXPECT_EQ(simp(max(x + 1, x + 3)), "x + 3");
  EXPECT_EQ(simp(min(x * 4 - 2, x * 4)), "x * 4 - 2");
  EXPECT_EQ(simp(min(x, x)), "x");
}

TEST(SimplifyMinMax, UsesBounds) {
  Var i("i"), j("j");
  Analyzer a;
  a.bind(i, 0, 10);
  a.bind(j, 20, 5);
  EXPECT_EQ(to_string(a.simplify(min(i, 10))), "i");
  EXPECT_EQ(to_string(a.simplify(min(i, 5))), "min(i, 5)");
  EXPECT_EQ(to_string(a.simplify(max(i, 0))), "i");
  EXPECT_EQ(to_string(a.simplify(min(i, j))), "i");
  EXPECT_EQ(to_string(a.simplify(max(i + 11, j))), "j");  // i + 11 <= 20 <= j
  EXPECT_EQ(to_string(a.simplify(max(i + 15, j))), "max(i + 15, j)");
  EXPECT_EQ(to_string(a.simplify(max(i + 25, j))), "i + 25");
}

TEST(SimplifyMinMax, ConstantsGoRightAndCombine) {
  Var x("x");
  EXPECT_EQ(simp(min(Expr(3), x)), "min(x, 3)");
  EXPECT_EQ(simp(min(min(x, 3), 5)), "min(x, 3)");
  EXPECT_EQ(simp(min(min(x, 7), 5)), "min(x, 5)");
  EXPECT_EQ(simp(max(max(x, 7), 5)), "max(x, 7)");
  EXPECT_EQ(simp(max(Expr(2), max(x, 7))), "max(x, 7)");
}

TEST(SimplifyMinMax, Absorption) {
  Var x("x"), y("y");
  EXPECT_EQ(simp(min(x, max(x, y))), "x");
  EXPECT_EQ(simp(min(max(y, x), x)), "x");
  EXPECT_EQ(simp(max(x, min(y, x))), "x");
  EXPECT_EQ(simp(min(min(x, y), y)), "min(x, y)");
  EXPECT_EQ(simp(max(x, max(x, y))), "max(x, y)");
  EXPECT_EQ(simp(min(x, y)), "min(x, y)");
}

TEST(SimplifyMinMax, Floats) {
  Var f("f", DataType::Float(32));
  EXPECT_EQ(simp(min(Expr(1.0f), Expr(2.0f))), "1.0f");
  EXPECT_EQ(simp(min(f, Expr(2.0f))), "min(f, 2.0f)");
}

}  // namespace
}  // namespace tessel::arith

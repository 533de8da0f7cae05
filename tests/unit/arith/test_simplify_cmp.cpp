// Simplifier, comparison family: decided by bounds, or rewritten into the normal form
// `positive terms < negative terms + constant` with the coefficients' gcd divided out.
#include <gtest/gtest.h>

#include "arith/analyzer.h"
#include "ir/printer.h"

namespace tessel::arith {
namespace {

using namespace ir;

std::string simp(const Expr& e) {
  return to_string(simplify(e));
}

TEST(SimplifyCmp, DecidedByBounds) {
  Var i("i"), j("j");
  Analyzer a;
  a.bind(i, 0, 128);
  a.bind(j, 0, 8);
  EXPECT_EQ(to_string(a.simplify(i * 8 + j < 1024)), "true");
  EXPECT_EQ(to_string(a.simplify(i * 8 + j >= 1024)), "false");
  EXPECT_EQ(to_string(a.simplify(i * 8 + j <= 1023)), "true");
  EXPECT_EQ(to_string(a.simplify(i * 8 + j == 2000)), "false");
  EXPECT_EQ(to_string(a.simplify(i * 8 + j != -1)), "true");
  EXPECT_EQ(to_string(a.simplify(i * 8 + j < 1000)), "i * 8 + j < 1000");
}

TEST(SimplifyCmp, SameTermsOnBothSides) {
  Var x("x"), y("y");
  EXPECT_EQ(simp(x + 1 < x + 2), "true");
  EXPECT_EQ(simp(x * 4 + y < x * 4 + 8), "y < 8");
  EXPECT_EQ(simp(x == x), "true");
  EXPECT_EQ(simp(x != x), "false");
}

TEST(SimplifyCmp, NormalForm) {
  Var x("x"), y("y");
  EXPECT_EQ(simp(x > y), "y < x");
  EXPECT_EQ(simp(x >= 5), "5 <= x");
  EXPECT_EQ(simp(x + 3 < 10), "x < 7");
  EXPECT_EQ(simp(x + 1 <= y), "x <= y - 1");
  EXPECT_EQ(simp(5 < x + y), "5 < x + y");
  EXPECT_EQ(simp(x - y == 3), "x == y + 3");
  EXPECT_EQ(simp(10 - x == 3), "x == 7");
}

TEST(SimplifyCmp, DividesByTheCoefficientGcd) {
  Var x("x"), y("y");
  EXPECT_EQ(simp(x * 4 < 13), "x < 4");  // 4x < 13 <=> x <= 3
  EXPECT_EQ(simp(x * 4 < 12), "x < 3");
  EXPECT_EQ(simp(x * 4 <= 13), "x <= 3");
  EXPECT_EQ(simp(x * 4 <= -13), "x <= -4");  // floor(-13/4) = -4
  EXPECT_EQ(simp(x * 2 == 7), "false");
  EXPECT_EQ(simp(x * 2 != 7), "true");
  EXPECT_EQ(simp(x * 2 + y * 4 == 8), "x + y * 2 == 4");
}

TEST(SimplifyCmp, DivisionAgainstAConstantComparesTheDividend) {
  Var x("x"), y("y");
  EXPECT_EQ(simp(x / 4 < 3), "x < 12");
  EXPECT_EQ(simp(x / 4 <= 2), "x < 12");
  EXPECT_EQ(simp(x / 4 > 2), "11 < x");
  EXPECT_EQ(simp(x / 4 >= -1), "-5 < x");
  EXPECT_EQ(simp(x / 4 * 3 < 7), "x < 12");  // 3*(x/4) < 7 <=> x/4 < 3
  EXPECT_EQ(simp((x + y * 3) / 4 - 1 <= 1), "x + y * 3 < 12");
  EXPECT_EQ(simp((x * 8 + y) / 4 < 5), "x * 2 + y / 4 < 5");  // the division splits first
  EXPECT_EQ(simp(x / 4 == 2), "x / 4 == 2");  // a range, not one comparison
  EXPECT_EQ(simp(x / y < 2), "x / y < 2");
}

TEST(SimplifyCmp, NegatedComparisons) {
  Var x("x"), y("y");
  EXPECT_EQ(simp(!(x < y)), "y <= x");
  EXPECT_EQ(simp(!(x <= y)), "y < x");
  EXPECT_EQ(simp(!(x == y)), "x != y");
  EXPECT_EQ(simp(!(x != y)), "x == y");
  Var f("f", DataType::Float(32));
  EXPECT_EQ(simp(!(f < Expr(1.0f))), "!(f < 1.0f)");  // NaN: not y <= x
}

TEST(SimplifyCmp, FloatsAreOnlyFolded) {
  Var f("f", DataType::Float(32));
  EXPECT_EQ(simp(f + Expr(1.0f) < f + Expr(2.0f)), "f + 1.0f < f + 2.0f");
  EXPECT_EQ(simp(Expr(1.0f) < Expr(2.0f)), "true");
}

}  // namespace
}  // namespace tessel::arith

// Simplifier, Div/Mod family (floor semantics): splitting by the divisor, bounds-based
// folding, gcd rules, nested divisions, and the cases that must be left alone.
#include <gtest/gtest.h>

#include "arith/analyzer.h"
#include "ir/printer.h"

namespace tessel::arith {
namespace {

using namespace ir;

std::string simp(const Expr& e) {
  return to_string(simplify(e));
}

TEST(SimplifyDivMod, SplitsOffMultiplesOfTheDivisor) {
  Var x("x"), y("y");
  EXPECT_EQ(simp((x * 4 + y) / 4), "x + y / 4");
  EXPECT_EQ(simp((x * 4 + y) % 4), "y % 4");
  EXPECT_EQ(simp((x * 8 + 9) / 4), "x * 2 + 2");
  EXPECT_EQ(simp((x * 8 + 9) % 4), "1");
  EXPECT_EQ(simp((x * 4 - 1) / 4), "x - 1");  // floor: (4x - 1)/4 == x - 1
  EXPECT_EQ(simp((x * 4 - 1) % 4), "3");
  EXPECT_EQ(simp((y + x * 12) / 4), "x * 3 + y / 4");
}

TEST(SimplifyDivMod, RemainderWithinOnePeriodFolds) {
  Var x("x"), y("y");
  Analyzer a;
  a.bind(y, 0, 4);
  EXPECT_EQ(to_string(a.simplify((x * 4 + y) / 4)), "x");
  EXPECT_EQ(to_string(a.simplify((x * 4 + y) % 4)), "y");
  EXPECT_EQ(to_string(a.simplify(y / 4)), "0");
  EXPECT_EQ(to_string(a.simplify((y + 4) / 4)), "1");
  EXPECT_EQ(to_string(a.simplify((x * 4 + y + 8) % 4)), "y");
  EXPECT_EQ(to_string(a.simplify((y - 4) % 4)), "y");
}

TEST(SimplifyDivMod, RemainderSpanningPeriodsIsKept) {
  Var x("x"), y("y");
  Analyzer a;
  a.bind(y, 0, 5);
  EXPECT_EQ(to_string(a.simplify((x * 4 + y) / 4)), "x + y / 4");
  EXPECT_EQ(to_string(a.simplify((x * 4 + y) % 4)), "y % 4");
}

TEST(SimplifyDivMod, CommonFactorsOfCoefficientsAndDivisor) {
  Var x("x"), y("y");
  EXPECT_EQ(simp((x * 4 + 3) / 8), "x / 2");
  EXPECT_EQ(simp((x * 4 + 3) % 8), "x % 2 * 4 + 3");
  EXPECT_EQ(simp((x * 2 + y * 2 + 1) / 4), "(x + y) / 2");
  EXPECT_EQ(simp((x * 6) / 4), "x * 3 / 2");
  EXPECT_EQ(simp((x * 6) % 4), "x * 3 % 2 * 2");
}

TEST(SimplifyDivMod, NestedDivisionAndModulo) {
  Var x("x");
  EXPECT_EQ(simp(x / 4 / 8), "x / 32");
  EXPECT_EQ(simp(x % 16 % 4), "x % 4");
  EXPECT_EQ(simp(x % 4 % 16), "x % 4");  // by bounds: x % 4 in [0, 3]
  EXPECT_EQ(simp(x % 6 % 4), "x % 6 % 4");
  EXPECT_EQ(simp((x / 4 + 1) / 2), "(x / 4 + 1) / 2");
}

TEST(SimplifyDivMod, TrivialDivisors) {
  Var x("x");
  EXPECT_EQ(simp(x / 1), "x");
  EXPECT_EQ(simp(x % 1), "0");
  EXPECT_EQ(simp(x % -1), "0");
  EXPECT_EQ(simp(x / x), "1");
  EXPECT_EQ(simp(x % x), "0");
}

TEST(SimplifyDivMod, LeftAlone) {
  Var x("x"), y("y");
  EXPECT_EQ(simp(x / 0), "x / 0");
  EXPECT_EQ(simp(x % 0), "x % 0");
  EXPECT_EQ(simp(x / -4), "x / -4");
  EXPECT_EQ(simp(x / y), "x / y");
  EXPECT_EQ(simp((x * 4) / y), "x * 4 / y");
  EXPECT_EQ(simp((x * y) / y), "x");  // y is nonzero wherever the division is defined
  EXPECT_EQ(simp((y * x) % y), "0");
}

TEST(SimplifyDivMod, VariableDivisorWithBounds) {
  Var x("x"), y("y");
  Analyzer a;
  a.bind(x, 0, 4);
  a.bind(y, 4, 10);
  EXPECT_EQ(to_string(a.simplify(x / y)), "0");
  EXPECT_EQ(to_string(a.simplify(x % y)), "x");
}

}  // namespace
}  // namespace tessel::arith

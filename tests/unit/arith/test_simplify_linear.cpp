// Simplifier, Add/Sub/Mul family: canonical linear forms of integer index expressions.
#include <gtest/gtest.h>

#include "arith/analyzer.h"
#include "ir/printer.h"

namespace tessel::arith {
namespace {

using namespace ir;

std::string simp(const Expr& e) {
  return to_string(simplify(e));
}

TEST(SimplifyLinear, CancelsLikeTerms) {
  Var x("x"), y("y"), i("i"), j("j");
  EXPECT_EQ(simp((x * 4 + y) - x * 4), "y");
  EXPECT_EQ(simp((i * 32 + j) - i * 32), "j");
  EXPECT_EQ(simp(x + 1 - 1), "x");
  EXPECT_EQ(simp(x - x), "0");
  EXPECT_EQ(simp((x + y) - (y + x)), "0");
  EXPECT_EQ(simp(x * 3 + x * 5 - y + y * 2), "x * 8 + y");
}

TEST(SimplifyLinear, CollectsConstants) {
  Var x("x");
  EXPECT_EQ(simp(3 + x + 4), "x + 7");
  EXPECT_EQ(simp(x - 3 - 4), "x - 7");
  EXPECT_EQ(simp(10 - (x + 3)), "7 - x");
  EXPECT_EQ(simp(0 - x), "0 - x");
  EXPECT_EQ(simp(x + 0), "x");
}

TEST(SimplifyLinear, KeepsFirstAppearanceOrderWithNegativeTermsLast) {
  Var a("a"), b("b"), c("c");
  EXPECT_EQ(simp(b + a), "b + a");
  EXPECT_EQ(simp(a - b + c), "a + c - b");
  EXPECT_EQ(simp(c * 2 - a * 3 + b + 1), "c * 2 + b - a * 3 + 1");
}

TEST(SimplifyLinear, MultiplicationByConstantsDistributes) {
  Var x("x"), y("y");
  EXPECT_EQ(simp((x + 2) * 4), "x * 4 + 8");
  EXPECT_EQ(simp(3 * (x - y)), "x * 3 - y * 3");
  EXPECT_EQ(simp(x * 0 + y), "y");
  EXPECT_EQ(simp(x * 1), "x");
  EXPECT_EQ(simp((x * 2) * 3), "x * 6");
}

TEST(SimplifyLinear, ProductsOfNonConstantsAreAtoms) {
  Var x("x"), y("y");
  EXPECT_EQ(simp(x * y + 1 - x * y), "1");
  EXPECT_EQ(simp(x * y * 2 + x * y), "x * y * 3");
}

TEST(SimplifyLinear, RecombinesDivAndMod) {
  Var f("f"), x("x"), n("n");
  EXPECT_EQ(simp(f / 8 * 8 + f % 8), "f");
  EXPECT_EQ(simp((f / n) * n + f % n), "f / n * n + f % n");  // n is not a constant
  EXPECT_EQ(simp(x - x / 4 * 4), "x % 4");
  EXPECT_EQ(simp((x + 3) - (x + 3) / 4 * 4 + 1), "(x + 3) % 4 + 1");
  EXPECT_EQ(simp(f / 16 * 32 + f % 16 * 2), "f * 2");
}

TEST(SimplifyLinear, RecombinesNestedDivAndMod) {
  // A row r of a [2, 7, 5] batch taken apart and put back together, the outer division
  // folded to r / 35 on the way.
  Var r("r");
  EXPECT_EQ(simp(((r / 5 / 7) * 7 + (r / 5) % 7) * 5 + r % 5), "r");
  EXPECT_EQ(simp(r / 35 * 14 + (r / 5) % 7 * 2), "r / 5 * 2");
  EXPECT_EQ(simp(r / 35 * 7 + (r / 4) % 7), "r / 35 * 7 + r / 4 % 7");  // 4 * 7 is not 35
  // Divisors whose product overflows 64 bits are left alone (UBSan checks the arithmetic).
  int64_t big = int64_t{1} << 62;
  EXPECT_EQ(simp(r / 8 * 4 + (r / big) % 4), "r / 8 * 4 + r / 4611686018427387904 % 4");
}

TEST(SimplifyLinear, NarrowIntegerTypesKeepTheirType) {
  Var x("x", DataType::Int(32));
  Expr e = simplify(x + make_int(2, DataType::Int(32)) - make_int(2, DataType::Int(32)));
  EXPECT_EQ(to_string(e), "x");
  Expr f = simplify(x * make_int(2, DataType::Int(32)) + x);
  EXPECT_EQ(f.dtype(), DataType::Int(32));
  EXPECT_EQ(to_string(f), "x * int32(3)");
}

TEST(SimplifyLinear, FloatsAreOnlyFolded) {
  Var x("x", DataType::Float(32));
  EXPECT_EQ(simp(x + 1.0f - 1.0f), "x + 1.0f - 1.0f");
  EXPECT_EQ(simp(x * (Expr(2.0f) + Expr(3.0f))), "x * 5.0f");
}

TEST(SimplifyLinear, UsesBoundVariables) {
  Var i("i"), j("j");
  Analyzer a;
  a.bind(i, 5, 1);  // i == 5
  EXPECT_EQ(to_string(a.simplify(i * 4 + j)), "j + 20");
  Var t("t");
  a.bind_value(t, j * 2);
  EXPECT_EQ(to_string(a.simplify(t - j)), "j");
}

}  // namespace
}  // namespace tessel::arith

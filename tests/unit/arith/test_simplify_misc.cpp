// Simplifier, remaining families: logic, select, casts, lets, and vectors (Ramp/Broadcast).
#include <gtest/gtest.h>

#include "arith/analyzer.h"
#include "ir/printer.h"

namespace tessel::arith {
namespace {

using namespace ir;

std::string simp(const Expr& e) {
  return to_string(simplify(e));
}

TEST(SimplifyLogic, IdentitiesAndAnnihilators) {
  Var x("x"), y("y");
  Expr p = x < y;
  EXPECT_EQ(simp(p && make_bool(true)), "x < y");
  EXPECT_EQ(simp(make_bool(false) && p), "false");
  EXPECT_EQ(simp(p || make_bool(true)), "true");
  EXPECT_EQ(simp(make_bool(false) || p), "x < y");
  EXPECT_EQ(simp(p && p), "x < y");
  EXPECT_EQ(simp(!!p), "x < y");
  Var b("b", DataType::Bool());
  EXPECT_EQ(simp(!!b), "b");
  EXPECT_EQ(simp(b && (x < x + 1)), "b");
}

TEST(SimplifyLogic, ProvableConjunctsDisappear) {
  Var i("i"), n("n");
  Analyzer a;
  a.bind(i, 0, 16);
  EXPECT_EQ(to_string(a.simplify(i >= 0 && i < n)), "i < n");
  EXPECT_EQ(to_string(a.simplify(i < 0 || i < n)), "i < n");
}

TEST(SimplifySelect, ConstantConditionAndEqualArms) {
  Var x("x"), y("y");
  EXPECT_EQ(simp(select(Expr(1) < 2, x, y)), "x");
  EXPECT_EQ(simp(select(Expr(1) > 2, x, y)), "y");
  EXPECT_EQ(simp(select(x < y, x + 1, 1 + x)), "x + 1");
  EXPECT_EQ(simp(select(x < y, x, y)), "select(x < y, x, y)");
  Analyzer a;
  a.bind(x, 0, 4);
  EXPECT_EQ(to_string(a.simplify(select(x < 4, x, y))), "x");
}

TEST(SimplifyCast, FoldsAndDropsNoOps) {
  Var x("x");
  EXPECT_EQ(simp(cast(DataType::Float(32), Expr(2) + 3)), "5.0f");
  EXPECT_EQ(simp(make_Cast(DataType::Index(), x + 1 - 1)), "x");
  EXPECT_EQ(simp(cast(DataType::Int(32), x + 0)), "int32(x)");
}

TEST(SimplifyLet, CheapValuesAreSubstituted) {
  Var t("t"), x("x"), y("y");
  EXPECT_EQ(simp(make_Let(t, Expr(4), t * x - x * 4)), "0");
  EXPECT_EQ(simp(make_Let(t, y, t - y)), "0");
}

TEST(SimplifyLet, OtherValuesStayBoundWithTheirBounds) {
  Var t("t"), x("x"), y("y");
  Analyzer a;
  a.bind(x, 0, 4);
  EXPECT_EQ(to_string(a.simplify(make_Let(t, x * y, t + t))), "(let t = x * y in t * 2)");
  // t's bounds come from its value: t in [0, 3] so t < 4 holds.
  EXPECT_EQ(to_string(a.simplify(make_Let(t, x % 8, select(t < 4, y, x)))), "y");
}

TEST(SimplifyVector, BroadcastAndRampArithmetic) {
  Var x("x"), y("y");
  Expr r = make_Ramp(x, Expr(1), 4);
  Expr bx = make_Broadcast(y, 4);
  EXPECT_EQ(simp(r + bx), "ramp(x + y, 1, 4)");
  EXPECT_EQ(simp(bx + r), "ramp(y + x, 1, 4)");
  EXPECT_EQ(simp(r - bx), "ramp(x - y, 1, 4)");
  EXPECT_EQ(simp(bx - r), "ramp(y - x, -1, 4)");
  EXPECT_EQ(simp(r * make_Broadcast(Expr(2), 4)), "ramp(x * 2, 2, 4)");
  EXPECT_EQ(simp(r + make_Ramp(y, Expr(3), 4)), "ramp(x + y, 4, 4)");
  EXPECT_EQ(simp(r - make_Ramp(x, Expr(1), 4)), "broadcast(0, 4)");
  EXPECT_EQ(simp(make_Broadcast(x, 4) * make_Broadcast(Expr(3), 4)), "broadcast(x * 3, 4)");
  EXPECT_EQ(simp(make_Ramp(x * 2 - x * 2, x - x, 4)), "broadcast(0, 4)");
}

TEST(SimplifyVector, BroadcastComparisons) {
  Var x("x");
  Analyzer a;
  a.bind(x, 0, 8);
  Expr cmp = make_Broadcast(x, 4) < make_Broadcast(Expr(8), 4);
  EXPECT_EQ(to_string(a.simplify(cmp)), "broadcast(true, 4)");
}

}  // namespace
}  // namespace tessel::arith

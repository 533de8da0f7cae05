// Constant bounds: interval arithmetic (with infinite ends) and Analyzer::const_bound
// through every integer node kind.
#include <gtest/gtest.h>

#include "arith/analyzer.h"
#include "arith/interval_math.h"

namespace tessel::arith {
namespace {

using namespace ir;

constexpr int64_t kNegInf = ConstBound::kNegInf;
constexpr int64_t kPosInf = ConstBound::kPosInf;

void expect_bound(const ConstBound& b, int64_t lo, int64_t hi) {
  EXPECT_EQ(b.min, lo);
  EXPECT_EQ(b.max, hi);
}

TEST(IntervalMath, AddSubMulSaturate) {
  expect_bound(bound::add({1, 2}, {10, 20}), 11, 22);
  expect_bound(bound::sub({1, 2}, {10, 20}), -19, -8);
  expect_bound(bound::add({kNegInf, 2}, {1, kPosInf}), kNegInf, kPosInf);
  expect_bound(bound::mul({-2, 3}, {-5, 4}), -15, 12);
  expect_bound(bound::mul({0, kPosInf}, {-1, 1}), kNegInf, kPosInf);
  expect_bound(bound::mul({kNegInf, kPosInf}, {0, 0}), 0, 0);
  expect_bound(bound::mul({1LL << 40, 1LL << 40}, {1LL << 40, 1LL << 40}), kPosInf, kPosInf);
  expect_bound(bound::negate({kNegInf, 3}), -3, kPosInf);
}

TEST(IntervalMath, FloorDivision) {
  expect_bound(bound::floordiv({-7, 7}, {2, 2}), -4, 3);
  expect_bound(bound::floordiv({-7, 7}, {-2, -2}), -4, 3);
  expect_bound(bound::floordiv({0, 100}, {3, 10}), 0, 33);
  expect_bound(bound::floordiv({-100, -1}, {3, 10}), -34, -1);
  expect_bound(bound::floordiv({5, kPosInf}, {2, kPosInf}), 0, kPosInf);
  expect_bound(bound::floordiv({-5, 5}, {1, kPosInf}), -5, 5);
  // A divisor interval holding 0: the quotient's magnitude is at most the dividend's.
  expect_bound(bound::floordiv({-6, 3}, {-2, 2}), -6, 6);
  expect_bound(bound::floordiv({1, 9}, {0, 3}), 0, 9);  // 0 excluded: divisor in [1, 3]
}

TEST(IntervalMath, FloorModulo) {
  expect_bound(bound::floormod({0, 3}, {8, 8}), 0, 3);
  expect_bound(bound::floormod({9, 11}, {8, 8}), 1, 3);
  expect_bound(bound::floormod({6, 11}, {8, 8}), 0, 7);
  expect_bound(bound::floormod({-3, 2}, {8, 8}), 0, 7);
  expect_bound(bound::floormod({0, 100}, {1, 8}), 0, 7);
  expect_bound(bound::floormod({0, 5}, {1, 8}), 0, 5);
  expect_bound(bound::floormod({-50, 50}, {-8, -8}), -7, 0);
  expect_bound(bound::floormod({-50, 50}, {-3, 5}), -2, 4);
  expect_bound(bound::floormod({kNegInf, kPosInf}, {1, kPosInf}), 0, kPosInf);
}

TEST(IntervalMath, FloorHelpers) {
  EXPECT_EQ(bound::floordiv(-7, 2), -4);
  EXPECT_EQ(bound::floormod(-7, 2), 1);
  EXPECT_EQ(bound::floordiv(7, -2), -4);
  EXPECT_EQ(bound::floormod(7, -2), -1);
  EXPECT_EQ(bound::floormod(kNegInf, -1), 0);
}

TEST(ConstBoundOf, NodeKinds) {
  Var i("i"), j("j"), k("k");
  Analyzer a;
  a.bind(i, 0, 10);  // [0, 9]
  a.bind(j, -4, 8);  // [-4, 3]
  a.bind(k, 1, 4);   // [1, 4]
  expect_bound(a.const_bound(i * 3 - j), -3, 31);
  expect_bound(a.const_bound(i / k), 0, 9);
  expect_bound(a.const_bound(j / 2), -2, 1);
  expect_bound(a.const_bound(i % 4), 0, 3);
  expect_bound(a.const_bound(j % k), 0, 3);
  expect_bound(a.const_bound(min(i, j) + max(i, j)), -4, 12);
  expect_bound(a.const_bound(select(i < 5, i, j + 100)), 0, 103);
  expect_bound(a.const_bound(i < j), 0, 1);
  expect_bound(a.const_bound(make_Ramp(i, Expr(2), 4)), 0, 15);
  expect_bound(a.const_bound(make_Broadcast(j, 4)), -4, 3);
  Var t("t");
  expect_bound(a.const_bound(make_Let(t, i * 2, t + 1)), 1, 19);
}

TEST(ConstBoundOf, SimplifiesFirstSoCorrelatedTermsCancel) {
  Var i("i");
  Analyzer a;
  a.bind(i, 0, 100);
  expect_bound(a.const_bound(i - i / 4 * 4), 0, 3);  // i % 4
  expect_bound(a.const_bound(i * 8 + 3 - i * 8), 3, 3);
}

TEST(ConstBoundOf, TypesAndUnboundVariables) {
  Analyzer a;
  expect_bound(a.const_bound(Var("n")), kNegInf, kPosInf);
  expect_bound(a.const_bound(Var("n", DataType::Int(8))), -128, 127);
  expect_bound(a.const_bound(Var("n", DataType::UInt(16))), 0, 65535);
  expect_bound(a.const_bound(Var("b", DataType::Bool())), 0, 1);
  Var n("n", DataType::Int(32));
  expect_bound(a.const_bound(cast(DataType::Int(8), n)), -128, 127);
  expect_bound(a.const_bound(cast(DataType::Index(), n) + 1), -2147483647, 2147483648);
  EXPECT_TRUE(a.const_bound(Expr(5)).is_const());
}

TEST(ConstBoundOf, SymbolicLoopBoundsUseTheirConstantBounds) {
  Var i("i"), j("j");
  Analyzer a;
  a.bind(i, 0, 8);
  a.bind(j, i, i + 2);  // j in [i, 2i + 1]
  expect_bound(a.const_bound(j), 0, 15);
}

}  // namespace
}  // namespace tessel::arith

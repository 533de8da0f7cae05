// Constant folding: integer floor semantics, wrap-around at the type's width, unsigned
// types, floats, comparisons, logic, casts, and the refusal to fold division by zero.
#include <gtest/gtest.h>

#include "arith/analyzer.h"
#include "arith/const_fold.h"
#include "ir/printer.h"

namespace tessel::arith {
namespace {

using namespace ir;

std::string folded(const Expr& e) {
  return to_string(simplify(e));
}

Expr i32(int64_t v) {
  return make_int(v, DataType::Int(32));
}
Expr i8(int64_t v) {
  return make_int(v, DataType::Int(8));
}
Expr u8(int64_t v) {
  return make_int(v, DataType::UInt(8));
}

TEST(ConstFold, IntegerArithmeticUsesFloorDivision) {
  EXPECT_EQ(folded(Expr(7) / 2), "3");
  EXPECT_EQ(folded(Expr(-7) / 2), "-4");
  EXPECT_EQ(folded(Expr(7) / -2), "-4");
  EXPECT_EQ(folded(Expr(-7) / -2), "3");
  EXPECT_EQ(folded(Expr(-7) % 2), "1");
  EXPECT_EQ(folded(Expr(7) % -2), "-1");
  EXPECT_EQ(folded(Expr(-8) % 4), "0");
  EXPECT_EQ(folded(min(Expr(3), Expr(-2)) + max(Expr(3), Expr(-2))), "1");
}

TEST(ConstFold, DivisionByZeroIsNotFolded) {
  EXPECT_EQ(folded(Expr(7) / 0), "7 / 0");
  EXPECT_EQ(folded(Expr(7) % 0), "7 % 0");
  EXPECT_FALSE(fold_binary(ExprKind::Div, Expr(1), Expr(0)).defined());
}

TEST(ConstFold, ResultsWrapToTheTypeWidth) {
  EXPECT_EQ(folded(i8(100) + i8(100)), "int8(-56)");
  EXPECT_EQ(folded(i32(2147483647) + i32(1)), "int32(-2147483648)");
  EXPECT_EQ(folded(u8(3) - u8(5)), "uint8(254)");
  EXPECT_EQ(folded(u8(200) / u8(7)), "uint8(28)");
  EXPECT_EQ(folded(Expr(std::numeric_limits<int64_t>::min()) / -1),
            std::to_string(std::numeric_limits<int64_t>::min()));
}

TEST(ConstFold, UnsignedSixtyFourBitUsesUnsignedOrder) {
  DataType u64 = DataType::UInt(64);
  Expr big = make_int(-1, u64);  // 2^64 - 1
  EXPECT_EQ(folded(big > make_int(1, u64)), "true");
  EXPECT_EQ(folded(big / make_int(2, u64)), "uint64(9223372036854775807)");
}

TEST(ConstFold, Floats) {
  EXPECT_EQ(folded(Expr(1.5f) + Expr(2.25f)), "3.75f");
  EXPECT_EQ(folded(Expr(1.0f) / Expr(4.0f)), "0.25f");
  EXPECT_EQ(folded(Expr(1.0f) < Expr(2.0f)), "true");
  EXPECT_EQ(folded(min(Expr(1.0f), Expr(-3.0f))), "-3.0f");
  // float32 results are rounded to float32.
  EXPECT_EQ(folded(Expr(0.1f) * Expr(3.0f)), "0.300000012f");
}

TEST(ConstFold, ComparisonsAndLogic) {
  EXPECT_EQ(folded(Expr(3) < 4), "true");
  EXPECT_EQ(folded(Expr(3) >= 4), "false");
  EXPECT_EQ(folded(Expr(3) == 3 && Expr(2) != 2), "false");
  EXPECT_EQ(folded(Expr(3) == 3 || Expr(2) != 2), "true");
  EXPECT_EQ(folded(!(Expr(3) == 3)), "false");
}

TEST(ConstFold, Casts) {
  EXPECT_EQ(folded(cast(DataType::Int(8), Expr(300))), "int8(44)");
  EXPECT_EQ(folded(cast(DataType::UInt(8), Expr(-1))), "uint8(255)");
  EXPECT_EQ(folded(cast(DataType::Float(32), Expr(3))), "3.0f");
  EXPECT_EQ(folded(cast(DataType::Int(32), Expr(-2.75f))), "int32(-2)");
  EXPECT_EQ(folded(cast(DataType::Bool(), Expr(5))), "true");
  // Out of range float-to-int conversions are undefined: left alone.
  EXPECT_EQ(folded(cast(DataType::Int(8), Expr(1000.0f))), "int8(1000.0f)");
}

TEST(ConstFold, Broadcasts) {
  Expr a = make_Broadcast(Expr(3), 4), b = make_Broadcast(Expr(5), 4);
  EXPECT_EQ(folded(a * b), "broadcast(15, 4)");
  EXPECT_EQ(folded(a < b), "broadcast(true, 4)");
}

}  // namespace
}  // namespace tessel::arith

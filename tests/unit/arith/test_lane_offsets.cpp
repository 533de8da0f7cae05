// lane_offsets: vector indices split into a scalar linear base and constant lane offsets,
// checked against the index evaluated lane by lane where it applies; strip_lane_clamps:
// clamped indices against their unclamped form and the condition, evaluated exhaustively.
#include <gtest/gtest.h>

#include "arith/lane_offsets.h"
#include "ir/interpreter.h"
#include "ir/printer.h"

namespace tessel::arith {
namespace {

using namespace ir;

Expr vec(int64_t value, int lanes) {
  return make_Broadcast(Expr(value), lanes);
}

Expr lanes_ramp(const Expr& base, int lanes) {
  return make_Ramp(base, Expr(int64_t{1}), lanes);
}

TEST(LaneOffsets, GroupedChannelsOfABlock) {
  // (kk / 4) * 4 + j over 16 lanes at a pixel x * 16: lane kk reads its group's channel j.
  Var x("x");
  for (int64_t j = 0; j < 4; ++j) {
    Expr index = make_Broadcast(x * 16, 16) +
                 lanes_ramp(Expr(int64_t{0}), 16) / vec(4, 16) * vec(4, 16) + vec(j, 16);
    std::optional<LaneOffsets> split = lane_offsets(index);
    ASSERT_TRUE(split) << to_string(index);
    EXPECT_EQ(to_string(from_linear(split->base)), "x * 16");
    EXPECT_EQ(split->base.coef_gcd(), 16);
    for (int64_t kk = 0; kk < 16; ++kk) EXPECT_EQ(split->offsets[kk], kk / 4 * 4 + j) << kk;
  }
}

TEST(LaneOffsets, RampsScaledAndShiftedKeepTheirConstantsInTheOffsets) {
  Var v("v");
  // ramp(v * 8 + 3, 2, 8) * 3 - 5: base v * 24, offsets 3 * (3 + 2l) - 5.
  Expr index = make_Ramp(v * 8 + 3, Expr(int64_t{2}), 8) * vec(3, 8) - vec(5, 8);
  std::optional<LaneOffsets> split = lane_offsets(index);
  ASSERT_TRUE(split);
  EXPECT_EQ(to_string(from_linear(split->base)), "v * 24");
  for (int64_t l = 0; l < 8; ++l) EXPECT_EQ(split->offsets[l], 3 * (3 + 2 * l) - 5);
}

TEST(LaneOffsets, FloorDivisionAndModuloOfNegativeOffsets) {
  // (ramp(-6, 1, 8)) / 4 and % 4: floor semantics, lane by lane.
  Expr r = lanes_ramp(Expr(int64_t{-6}), 8);
  std::optional<LaneOffsets> q = lane_offsets(r / vec(4, 8));
  std::optional<LaneOffsets> m = lane_offsets(r % vec(4, 8));
  ASSERT_TRUE(q && m);
  const int64_t quotient[] = {-2, -2, -1, -1, -1, -1, 0, 0};
  const int64_t remainder[] = {2, 3, 0, 1, 2, 3, 0, 1};
  for (int l = 0; l < 8; ++l) {
    EXPECT_EQ(q->offsets[l], quotient[l]) << l;
    EXPECT_EQ(m->offsets[l], remainder[l]) << l;
  }
}

TEST(LaneOffsets, RefusesWhatItCannotSplitExactly) {
  Var v("v");
  // The scalar part v * 6 is not a multiple of 4: (v * 6 + l) / 4 depends on v per lane.
  EXPECT_FALSE(lane_offsets(lanes_ramp(v * 6, 8) / vec(4, 8)));
  // A ramp of variable stride, a product of two lane-dependent vectors, a narrower index.
  EXPECT_FALSE(lane_offsets(make_Ramp(Expr(int64_t{0}), v, 8)));
  EXPECT_FALSE(lane_offsets(lanes_ramp(v, 8) * lanes_ramp(v, 8)));
  EXPECT_FALSE(
      lane_offsets(make_Ramp(make_int(0, DataType::Int(32)), make_int(1, DataType::Int(32)), 8)));
  // Division by zero or a negative constant.
  EXPECT_FALSE(lane_offsets(lanes_ramp(Expr(int64_t{0}), 8) / vec(0, 8)));
  EXPECT_FALSE(lane_offsets(lanes_ramp(Expr(int64_t{0}), 8) / vec(-2, 8)));
}

/// Lane `lane` of integer (or bool) `e` with the variables bound to the given values.
int64_t evaluate_int_lane(const Expr& e, const std::vector<std::pair<Var, int64_t>>& values,
                          int lane) {
  Env env;
  for (const auto& [var, value] : values) env.bind(var, Value::from_int(var.dtype(), value));
  return evaluate(e, env).int_at(e.dtype().lanes == 1 ? 0 : lane);
}

int64_t lane_value(const Expr& e, const Var& v, int64_t value, int lane) {
  return evaluate_int_lane(e, {{v, value}}, lane);
}

TEST(StripLaneClamps, APaddingStagesRowReadsPlainlyAwayFromItsEnds) {
  // The data index of a zero-padding stage of a 20-wide row, padded by 1, in vectors of 8:
  // y * 20 + max(min(ramp(x * 8 - 1, 1, 8), 19), 0). Unclamped where 1 <= x and
  // x * 8 + 6 <= 19, i.e. x == 1 of x in [0, 3).
  Var x("x"), y("y");
  Expr row = make_Broadcast(y * 20, 8);
  Expr column = max(min(lanes_ramp(x * 8 - 1, 8), vec(19, 8)), vec(0, 8));
  Expr index = row + column;
  std::optional<UnclampedIndex> stripped = strip_lane_clamps(index);
  ASSERT_TRUE(stripped) << to_string(index);
  ASSERT_TRUE(lane_offsets(stripped->index)) << to_string(stripped->index);
  EXPECT_EQ(stripped->in_range.dtype(), DataType::Bool());
  for (int64_t xv = 0; xv < 3; ++xv) {
    bool in_range = evaluate_int_lane(stripped->in_range, {{x, xv}, {y, 2}}, 0) != 0;
    EXPECT_EQ(in_range, xv == 1) << xv;
    for (int l = 0; l < 8; ++l) {
      int64_t clamped = evaluate_int_lane(index, {{x, xv}, {y, 2}}, l);
      EXPECT_EQ(clamped, 40 + std::max<int64_t>(std::min<int64_t>(xv * 8 - 1 + l, 19), 0));
      if (in_range) {
        EXPECT_EQ(evaluate_int_lane(stripped->index, {{x, xv}, {y, 2}}, l), clamped) << xv;
      }
    }
  }
}

TEST(StripLaneClamps, OneSidedAndCommutedClampsHoldExactlyWhenNoLaneIsClamped) {
  // min(hi, ramp(v, 2, 4)) and max(ramp(v, 2, 4), lo) with bounds in either operand: the
  // condition holds for exactly the values of v where every lane is unchanged.
  Var v("v");
  Expr r = make_Ramp(Expr(v), Expr(int64_t{2}), 4);
  for (const Expr& index : {min(vec(9, 4), r), max(r, vec(-3, 4)), min(r, vec(9, 4)) + vec(5, 4)}) {
    std::optional<UnclampedIndex> stripped = strip_lane_clamps(index);
    ASSERT_TRUE(stripped) << to_string(index);
    for (int64_t value = -10; value <= 10; ++value) {
      bool unchanged = true;
      for (int l = 0; l < 4; ++l)
        unchanged =
            unchanged && lane_value(index, v, value, l) == lane_value(stripped->index, v, value, l);
      EXPECT_EQ(lane_value(stripped->in_range, v, value, 0) != 0, unchanged)
          << to_string(index) << " at v = " << value;
    }
  }
}

TEST(StripLaneClamps, LeavesScalarClampsAndUnsplittableOnesAlone) {
  Var v("v"), w("w");
  // Only a scalar clamp (the row of a padding stage): no vector clamp to strip.
  EXPECT_FALSE(strip_lane_clamps(
      make_Broadcast(max(min(v, Expr(int64_t{9})), Expr(int64_t{0})), 8) + lanes_ramp(w, 8)));
  // A bound that differs per lane, and a clamped vector that lane_offsets cannot split.
  EXPECT_FALSE(strip_lane_clamps(min(lanes_ramp(v, 8), lanes_ramp(w, 8))));
  EXPECT_FALSE(strip_lane_clamps(min(lanes_ramp(v, 8) * lanes_ramp(v, 8), vec(9, 8))));
  EXPECT_FALSE(strip_lane_clamps(v + 1));
}

}  // namespace
}  // namespace tessel::arith

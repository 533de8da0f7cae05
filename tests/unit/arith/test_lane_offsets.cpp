// lane_offsets: vector indices split into a scalar linear base and constant lane offsets,
// checked against the index evaluated lane by lane where it applies.
#include <gtest/gtest.h>

#include "arith/lane_offsets.h"
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

}  // namespace
}  // namespace tessel::arith

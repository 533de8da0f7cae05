// The operators of opsets before 7: attribute broadcast = 1 lines input 1 up with input 0
// from attribute 'axis' (by default its last axes), without it the shapes must be equal;
// PRelu's slope is one value or one per channel; opsets 1-5's consumed_inputs changes
// nothing (Relu, Sum, Clip, ...); Concat's axis is 1 by default before opset 4; Reshape's
// shape attribute before opset 5; Dropout's is_test. Checked against the index arithmetic
// written out.
#include <algorithm>

#include "unit/ops_test_util.h"

namespace tessel::ops::testing {
namespace {

TEST(LegacyBroadcast, InputOneLinesUpFromTheAxis) {
  NDArray a = make_array(kF32, {2, 3, 4, 5}, random_values<double>({2, 3, 4, 5}, 1));
  NDArray b = make_array(kF32, {3, 4}, random_values<double>({3, 4}, 2));
  NDArray y = run_op("Add", {&a, &b},
                     {{"broadcast", Attribute::of_int(1)}, {"axis", Attribute::of_int(1)}}, 6);
  ASSERT_EQ(y.shape(), (Shape{2, 3, 4, 5}));
  for (int64_t k = 0; k < 120; ++k) {
    Shape i = unravel(k, {2, 3, 4, 5});
    EXPECT_FLOAT_EQ(element(y, k), static_cast<float>(element(a, k) + element(b, i[1] * 4 + i[2])))
        << k;
  }
  // Without 'axis', input 1 takes the last axes (as numpy broadcasting would).
  NDArray c = make_array(kF32, {4, 5}, random_values<double>({4, 5}, 3));
  NDArray z = run_op("Mul", {&a, &c}, {{"broadcast", Attribute::of_int(1)}}, 6);
  for (int64_t k = 0; k < 120; ++k)
    EXPECT_FLOAT_EQ(element(z, k), static_cast<float>(element(a, k) * element(c, k % 20)));
}

TEST(LegacyBroadcast, PReluSlopesArePerChannel) {
  NDArray x = make_array(kF32, {2, 3, 2, 2}, random_values<double>({2, 3, 2, 2}, 4));
  NDArray slope = make_array(kF32, {3}, {0.5, -2, 3});
  NDArray y = run_op("PRelu", {&x, &slope}, {}, 6);
  for (int64_t k = 0; k < 24; ++k) {
    double v = element(x, k), s = element(slope, unravel(k, {2, 3, 2, 2})[1]);
    EXPECT_FLOAT_EQ(element(y, k), v < 0 ? s * v : v) << k;
  }
}

TEST(LegacyBroadcast, MismatchesAreRefused) {
  NDArray a = make_array(kF32, {2, 3}, std::vector<double>(6, 1));
  NDArray b = make_array(kF32, {3}, {1, 2, 3});
  expect_compile_error(
      [&] {
        run_op("Add", {&a, &b}, {}, 6);
      },
      "without attribute 'broadcast' (opset 6) the inputs must have one shape, "
      "found [2,3] and [3]");
  expect_compile_error(
      [&] {
        run_op("Add", {&a, &b},
               {{"broadcast", Attribute::of_int(1)}, {"axis", Attribute::of_int(0)}}, 6);
      },
      "input 1 [3] does not broadcast onto input 0 [2,3] from axis 0");
  expect_compile_error(
      [&] {
        run_op("Sub", {&b, &a}, {{"broadcast", Attribute::of_int(1)}}, 6);
      },
      "input 1 [2,3] has more axes than input 0 [3]");
}

TEST(LegacyOpsets, HintsAndDefaultsOfTheFirstOpsets) {
  NDArray x = make_array(kF32, {2, 3}, {-1, 2, -3, 4, -5, 6});
  NDArray relu = run_op("Relu", {&x}, {{"consumed_inputs", Attribute::of_ints({0})}}, 3);
  for (int64_t k = 0; k < 6; ++k) EXPECT_EQ(element(relu, k), std::max(element(x, k), 0.0));
  NDArray total = run_op("Sum", {&x, &x}, {{"consumed_inputs", Attribute::of_ints({0, 0})}}, 1);
  NDArray clipped = run_op("Clip", {&x},
                           {{"min", Attribute::of_float(-2)},
                            {"max", Attribute::of_float(3)},
                            {"consumed_inputs", Attribute::of_ints({0})}},
                           1);
  for (int64_t k = 0; k < 6; ++k) {
    EXPECT_EQ(element(total, k), 2 * element(x, k));
    EXPECT_EQ(element(clipped, k), std::clamp(element(x, k), -2.0, 3.0));
  }
  NDArray joined = run_op("Concat", {&x, &x}, {}, 3);  // along axis 1
  ASSERT_EQ(joined.shape(), (Shape{2, 6}));
  for (int64_t k = 0; k < 12; ++k) EXPECT_EQ(element(joined, k), element(x, (k / 6) * 3 + k % 3));
  expect_compile_error([&] { run_op("Concat", {&x, &x}, {}, 4); }, "attribute 'axis' is required");
  NDArray reshaped = run_op("Reshape", {&x}, {{"shape", Attribute::of_ints({3, -1})}}, 1);
  ASSERT_EQ(reshaped.shape(), (Shape{3, 2}));
  for (int64_t k = 0; k < 6; ++k) EXPECT_EQ(element(reshaped, k), element(x, k));
  NDArray kept = run_op("Dropout", {&x}, {{"is_test", Attribute::of_int(1)}}, 6);
  for (int64_t k = 0; k < 6; ++k) EXPECT_EQ(element(kept, k), element(x, k));
  // is_test = 0 (the default) trains, which only the compiler's rewrites run
  // (tests/unit/passes/test_random_rules.cpp).
  expect_compile_error([&] { run_op("Dropout", {&x}, {}, 6); }, "in training mode");
}

}  // namespace
}  // namespace tessel::ops::testing

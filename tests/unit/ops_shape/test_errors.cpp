// Bad input to the shape operators: each case must fail with a CompileError naming the
// problem.
#include "unit/ops_shape/shape_test_util.h"

namespace tessel::ops::testing {
namespace {

TEST(ShapeOpErrors, ReshapeToAnotherElementCount) {
  NDArray x = iota<float>({2, 3});
  NDArray shape = ints({4, 2});
  expect_compile_error(
      [&] {
        run_op("Reshape", {&x, &shape});
      },
      "cannot reshape an input of shape [2, 3] (6 elements) into [4, 2]");
}

TEST(ShapeOpErrors, ReshapeWithTwoMinusOnes) {
  NDArray x = iota<float>({2, 3});
  NDArray shape = ints({-1, -1});
  expect_compile_error([&] { run_op("Reshape", {&x, &shape}); }, "has more than one -1");
}

TEST(ShapeOpErrors, ReshapeMinusOneThatDoesNotDivide) {
  NDArray x = iota<float>({2, 3});
  NDArray shape = ints({4, -1});
  expect_compile_error([&] { run_op("Reshape", {&x, &shape}); }, "cannot infer the -1 dimension");
}

TEST(ShapeOpErrors, AxisOutOfRange) {
  NDArray x = iota<float>({2, 3});
  expect_compile_error(
      [&] {
        run_op("Concat", {&x, &x}, {{"axis", Attribute::of_int(2)}});
      },
      "attribute 'axis' 2 is out of range for rank 2");
  expect_compile_error(
      [&] {
        run_op("Flatten", {&x}, {{"axis", Attribute::of_int(-3)}});
      },
      "attribute 'axis' is -3, out of range [-2, 2]");
  NDArray axes = ints({5});
  expect_compile_error(
      [&] {
        run_op("Unsqueeze", {&x, &axes});
      },
      "axis 5 is out of range for rank 3");
  expect_compile_error(
      [&] {
        run_op_outputs("Split", {&x}, {{"axis", Attribute::of_int(-3)}}, 13, 2);
      },
      "attribute 'axis' -3 is out of range for rank 2");
}

TEST(ShapeOpErrors, BadPermutation) {
  NDArray x = iota<float>({2, 3, 4});
  expect_compile_error(
      [&] {
        run_op("Transpose", {&x}, {{"perm", Attribute::of_ints({0, 0, 1})}});
      },
      "attribute 'perm' [0, 0, 1] is not a permutation of 0..2");
  expect_compile_error(
      [&] {
        run_op("Transpose", {&x}, {{"perm", Attribute::of_ints({1, 0})}});
      },
      "is not a permutation");
}

TEST(ShapeOpErrors, SqueezeOfNonUnitAxisAndRepeatedAxes) {
  NDArray x = iota<float>({1, 3});
  expect_compile_error(
      [&] {
        run_op("Squeeze", {&x}, {{"axes", Attribute::of_ints({1})}}, 11);
      },
      "attribute 'axes' names axis 1 of extent 3");
  NDArray axes = ints({0, -4});
  expect_compile_error([&] { run_op("Unsqueeze", {&x, &axes}); }, "names axis 0 twice");
}

TEST(ShapeOpErrors, SplitSizesThatDoNotAddUp) {
  NDArray x = iota<float>({5});
  NDArray split = ints({2, 2});
  expect_compile_error(
      [&] {
        run_op_outputs("Split", {&x, &split}, {}, 13, 2);
      },
      "input 'split' [2, 2] sums to 4, but axis 0 has extent 5");
  expect_compile_error([&] { run_op_outputs("Split", {&x}, {}, 13, 2); },
                       "cannot be split into 2 equal parts");
}

TEST(ShapeOpErrors, ConcatOfMismatchedShapes) {
  NDArray a = iota<float>({2, 3}), b = iota<float>({3, 3});
  expect_compile_error(
      [&] {
        run_op("Concat", {&a, &b}, {{"axis", Attribute::of_int(1)}});
      },
      "input 1 of type float32[3, 3] cannot be joined on axis 1");
}

TEST(ShapeOpErrors, SliceWithZeroStepOrMismatchedLists) {
  NDArray x = iota<float>({4});
  NDArray starts = ints({0}), ends = ints({4}), axes = ints({0}), zero = ints({0});
  expect_compile_error([&] { run_op("Slice", {&x, &starts, &ends, &axes, &zero}); }, "is 0");
  NDArray two_ends = ints({4, 4});
  expect_compile_error(
      [&] {
        run_op("Slice", {&x, &starts, &two_ends});
      },
      "must have equal lengths, found 1, 2");
}

TEST(ShapeOpErrors, ExpandAndTileShapes) {
  NDArray x = iota<float>({2, 3});
  NDArray shape = ints({4, 3, 4});
  expect_compile_error([&] { run_op("Expand", {&x, &shape}); }, "cannot be broadcast together");
  NDArray repeats = ints({2});
  expect_compile_error(
      [&] {
        run_op("Tile", {&x, &repeats});
      },
      "has 1 entries for an input of rank 2");
}

TEST(ShapeOpErrors, MessagesNameTheNodeAndOpset) {
  NDArray x = iota<float>({2, 3});
  NDArray shape = ints({7});
  expect_compile_error(
      [&] {
        run_op("Reshape", {&x, &shape}, {}, 13);
      },
      "node 'n' (Reshape), opset 13");
}

}  // namespace
}  // namespace tessel::ops::testing

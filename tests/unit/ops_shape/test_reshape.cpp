// Reshape, Flatten, Squeeze and Unsqueeze: the data keeps its row-major order, so the
// reference output is the input's element list; the tests check shapes and data.
#include "unit/ops_shape/shape_test_util.h"

namespace tessel::ops::testing {
namespace {

/// Runs `op` on a [in_shape] iota and expects shape `out_shape` with the same elements.
void expect_view(const std::string& op, const Shape& in_shape, const Shape& out_shape,
                 const std::vector<const NDArray*>& extra_inputs, Attributes attributes = {},
                 int opset = 17) {
  NDArray x = iota<float>(in_shape);
  std::vector<const NDArray*> inputs = {&x};
  inputs.insert(inputs.end(), extra_inputs.begin(), extra_inputs.end());
  auto out = run_op_outputs(op, inputs, std::move(attributes), opset);
  SCOPED_TRACE(op);
  expect_array<float>(out[0], out_shape, values_of<float>(x));
}

TEST(ReshapeOp, ExplicitShapes) {
  struct Case {
    Shape in, out;
  };
  for (const Case& c : {Case{{2, 3, 4}, {4, 6}}, Case{{6, 4}, {4, 6}}, Case{{2, 3, 4}, {3, 8}},
                        Case{{2, 1, 3}, {1, 6, 1}}, Case{{24}, {2, 3, 2, 2}}, Case{{1}, {}},
                        Case{{}, {1, 1}}, Case{{4, 9}, {6, 6}}}) {
    NDArray shape = ints(c.out);
    expect_view("Reshape", c.in, c.out, {&shape});
  }
}

TEST(ReshapeOp, ZeroCopiesAndMinusOneInfers) {
  NDArray zero_and_minus_one = ints({0, -1});
  expect_view("Reshape", {2, 3, 4}, {2, 12}, {&zero_and_minus_one});
  NDArray minus_one_middle = ints({2, -1, 2});
  expect_view("Reshape", {2, 3, 4}, {2, 6, 2}, {&minus_one_middle});
  NDArray zeros = ints({0, 0, 4});
  expect_view("Reshape", {2, 3, 4}, {2, 3, 4}, {&zeros});
}

TEST(ReshapeOp, AllowZeroFromOpset14) {
  NDArray shape = ints({0, 4});
  // allowzero = 1: 0 is an extent of its own, so an empty input can take shape [0, 4].
  expect_view("Reshape", {4, 0}, {0, 4}, {&shape}, {{"allowzero", Attribute::of_int(1)}}, 14);
  // Without it (and before opset 14, where the attribute does not exist) 0 copies.
  NDArray copy = ints({0, 6});
  expect_view("Reshape", {2, 3, 2}, {2, 6}, {&copy}, {}, 13);
}

TEST(FlattenOp, EveryAxis) {
  Shape in = {2, 3, 4};
  struct Case {
    int64_t axis;
    Shape out;
  };
  for (const Case& c : {Case{0, {1, 24}}, Case{1, {2, 12}}, Case{2, {6, 4}}, Case{3, {24, 1}},
                        Case{-1, {6, 4}}, Case{-3, {1, 24}}})
    expect_view("Flatten", in, c.out, {}, {{"axis", Attribute::of_int(c.axis)}});
  expect_view("Flatten", in, {2, 12}, {});
}

TEST(SqueezeOp, AxesAttributeBeforeOpset13) {
  expect_view("Squeeze", {1, 3, 1, 2}, {3, 1, 2}, {}, {{"axes", Attribute::of_ints({0})}}, 11);
  expect_view("Squeeze", {1, 3, 1, 2}, {3, 2}, {}, {{"axes", Attribute::of_ints({-2, 0})}}, 11);
}

TEST(SqueezeOp, AxesInputFromOpset13) {
  NDArray axes = ints({2});
  expect_view("Squeeze", {1, 3, 1, 2}, {1, 3, 2}, {&axes}, {}, 13);
  NDArray negative = ints({-4});
  expect_view("Squeeze", {1, 3, 1, 2}, {3, 1, 2}, {&negative}, {}, 13);
}

TEST(SqueezeOp, NoAxesRemovesEveryUnitDimension) {
  expect_view("Squeeze", {1, 3, 1, 2, 1}, {3, 2}, {}, {}, 11);
  expect_view("Squeeze", {1, 3, 1, 2, 1}, {3, 2}, {}, {}, 13);
  expect_view("Squeeze", {1, 1}, {}, {}, {}, 13);
}

TEST(UnsqueezeOp, AttributeAndInput) {
  expect_view("Unsqueeze", {3, 4}, {1, 3, 4, 1}, {}, {{"axes", Attribute::of_ints({0, 3})}}, 11);
  NDArray axes = ints({3, -1, 0});  // unsorted, negative: positions in the output's rank 5
  expect_view("Unsqueeze", {3, 4}, {1, 3, 4, 1, 1}, {&axes}, {}, 13);
  NDArray scalar_axes = ints({0});
  expect_view("Unsqueeze", {}, {1}, {&scalar_axes}, {}, 13);
}

}  // namespace
}  // namespace tessel::ops::testing

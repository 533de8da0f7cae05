// Constant, Shape and Size: folded on the host from attributes and input types.
#include <memory>

#include "unit/ops_shape/shape_test_util.h"

namespace tessel::ops::testing {
namespace {

TEST(ConstantOp, TensorValueIsCopied) {
  auto value = std::make_shared<NDArray>(array_of<float>({2, 2}, {1.5f, -2, 3, 4}));
  auto out = run_op_outputs("Constant", {}, {{"value", Attribute::of_tensor(value)}}, 9);
  expect_array<float>(out[0], {2, 2}, {1.5f, -2, 3, 4});
}

TEST(ConstantOp, ScalarAndListAttributes) {
  expect_array<float>(run_op("Constant", {}, {{"value_float", Attribute::of_float(2.5)}}), {},
                      {2.5f});
  expect_array<float>(run_op("Constant", {}, {{"value_floats", Attribute::of_floats({1, 2, 3})}}),
                      {3}, {1, 2, 3});
  expect_array<int64_t>(run_op("Constant", {}, {{"value_int", Attribute::of_int(-7)}}), {}, {-7});
  expect_array<int64_t>(run_op("Constant", {}, {{"value_ints", Attribute::of_ints({4, 5})}}), {2},
                        {4, 5});
}

TEST(ConstantOp, UnsupportedOrAmbiguousValues) {
  expect_compile_error(
      [] {
        run_op("Constant", {}, {{"value_string", Attribute::of_string("a")}});
      },
      "attribute 'value_string' is not supported");
  expect_compile_error([] { run_op("Constant", {}, {}); }, "exactly one of the value attributes");
  expect_compile_error(
      [] {
        run_op("Constant", {},
               {{"value_int", Attribute::of_int(1)}, {"value_float", Attribute::of_float(1)}});
      },
      "found 2");
}

TEST(ShapeOp, WholeShape) {
  NDArray x = iota<float>({2, 3, 4});
  expect_array<int64_t>(run_op("Shape", {&x}, {}, 13), {3}, {2, 3, 4});
  NDArray empty = iota<float>({3, 0});
  expect_array<int64_t>(run_op("Shape", {&empty}), {2}, {3, 0});
}

TEST(ShapeOp, StartAndEndFromOpset15) {
  NDArray x = iota<float>({2, 3, 4, 5});
  struct Case {
    Attributes attributes;
    std::vector<int64_t> expected;
  };
  std::vector<Case> cases = {
      {{{"start", Attribute::of_int(1)}}, {3, 4, 5}},
      {{{"end", Attribute::of_int(-1)}}, {2, 3, 4}},
      {{{"start", Attribute::of_int(-3)}, {"end", Attribute::of_int(3)}}, {3, 4}},
      {{{"start", Attribute::of_int(-10)}, {"end", Attribute::of_int(10)}}, {2, 3, 4, 5}},
      {{{"start", Attribute::of_int(3)}, {"end", Attribute::of_int(1)}}, {}},
  };
  for (const Case& c : cases) {
    auto out = run_op_outputs("Shape", {&x}, c.attributes, 15);
    expect_array<int64_t>(out[0], {static_cast<int64_t>(c.expected.size())}, c.expected);
  }
}

TEST(SizeOp, ElementCount) {
  NDArray x = iota<int32_t>({2, 3, 4});
  expect_array<int64_t>(run_op("Size", {&x}), {}, {24});
  NDArray empty = iota<float>({5, 0});
  expect_array<int64_t>(run_op("Size", {&empty}), {}, {0});
}

}  // namespace
}  // namespace tessel::ops::testing

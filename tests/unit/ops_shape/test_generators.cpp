// ConstantOfShape, Range, OneHot, EyeLike and Trilu against naive references.
#include <cmath>
#include <memory>

#include "unit/ops_shape/shape_test_util.h"

namespace tessel::ops::testing {
namespace {

TEST(ConstantOfShapeOp, DefaultIsFloatZero) {
  NDArray shape = ints({2, 3});
  expect_array<float>(run_op("ConstantOfShape", {&shape}), {2, 3}, std::vector<float>(6, 0));
}

TEST(ConstantOfShapeOp, ValueAttributeSetsTypeAndValue) {
  auto value = std::make_shared<NDArray>(array_of<int32_t>({1}, {7}));
  NDArray shape = ints({3, 1});
  expect_array<int32_t>(
      run_op("ConstantOfShape", {&shape}, {{"value", Attribute::of_tensor(value)}}), {3, 1},
      {7, 7, 7});
}

TEST(ConstantOfShapeOp, EmptyAndScalarShapes) {
  NDArray zero = ints({0, 4});
  expect_array<float>(run_op("ConstantOfShape", {&zero}), {0, 4}, {});
  NDArray scalar = ints({});
  expect_array<float>(run_op("ConstantOfShape", {&scalar}), {}, {0});
}

/// The numbers start, start + delta, ... before limit, by repeated addition.
template <class T>
std::vector<T> range_reference(T start, T limit, T delta) {
  std::vector<T> out;
  for (T v = start; delta > 0 ? v < limit : v > limit; v = static_cast<T>(v + delta))
    out.push_back(v);
  return out;
}

TEST(RangeOp, Float) {
  NDArray start = array_of<float>({}, {1}), limit = array_of<float>({}, {5}),
          delta = array_of<float>({}, {0.5f});
  auto expected = range_reference(1.0f, 5.0f, 0.5f);
  expect_array<float>(run_op("Range", {&start, &limit, &delta}),
                      {static_cast<int64_t>(expected.size())}, expected);
}

TEST(RangeOp, IntegersWithNegativeAndInexactDelta) {
  struct Case {
    int32_t start, limit, delta;
  };
  for (Case c : {Case{10, 4, -3}, Case{10, 3, -3}, Case{0, 10, 3}, Case{5, 1, 2}, Case{-4, 4, 4}}) {
    NDArray start = array_of<int32_t>({}, {c.start}), limit = array_of<int32_t>({}, {c.limit}),
            delta = array_of<int32_t>({}, {c.delta});
    auto expected = range_reference(c.start, c.limit, c.delta);
    expect_array<int32_t>(run_op("Range", {&start, &limit, &delta}),
                          {static_cast<int64_t>(expected.size())}, expected);
  }
}

TEST(OneHotOp, AxesAndNegativeIndices) {
  const int64_t depth = 4;
  NDArray indices = array_of<int64_t>({2, 3}, {0, 3, -1, -4, 5, -5});
  NDArray depth_value = array_of<int64_t>({}, {depth});
  NDArray values = array_of<float>({2}, {-1, 2});
  Shape in_shape = {2, 3};
  for (int64_t axis : {-1, 0, 1, 2, -3}) {
    int64_t a = axis < 0 ? axis + 3 : axis;
    Shape out_shape = in_shape;
    out_shape.insert(out_shape.begin() + a, depth);
    std::vector<float> expected;
    auto index_values = values_of<int64_t>(indices);
    for (int64_t k = 0; k < count(out_shape); ++k) {
      Shape at = unravel(k, out_shape);
      int64_t j = at[a];
      at.erase(at.begin() + a);
      int64_t index = index_values[ravel(at, in_shape)];
      if (index < 0) index += depth;
      expected.push_back(index == j ? 2.0f : -1.0f);
    }
    auto out = run_op_outputs("OneHot", {&indices, &depth_value, &values},
                              {{"axis", Attribute::of_int(axis)}}, 11);
    expect_array<float>(out[0], out_shape, expected);
  }
}

TEST(OneHotOp, FloatIndicesAndDepth) {
  NDArray indices = array_of<float>({3}, {1.0f, 2.7f, 0.0f});
  NDArray depth = array_of<float>({1}, {3.0f});
  NDArray values = array_of<int32_t>({2}, {0, 1});
  expect_array<int32_t>(run_op("OneHot", {&indices, &depth, &values}), {3, 3},
                        {0, 1, 0, 0, 0, 1, 1, 0, 0});
}

TEST(EyeLikeOp, DiagonalOffsetsAndType) {
  NDArray x = iota<float>({3, 5});
  for (int64_t k : {0, 2, -1, 7}) {
    std::vector<float> expected;
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 5; ++j) expected.push_back(j - i == k ? 1.0f : 0.0f);
    expect_array<float>(run_op("EyeLike", {&x}, {{"k", Attribute::of_int(k)}}), {3, 5}, expected);
  }
  auto out = run_op_outputs("EyeLike", {&x}, {{"dtype", Attribute::of_int(6)}});  // int32
  expect_array<int32_t>(out[0], {3, 5}, {1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0});
}

TEST(TriluOp, UpperAndLowerWithOffsets) {
  Shape shape = {2, 3, 4};
  NDArray x = iota<int64_t>(shape);
  for (int64_t upper : {0, 1}) {
    for (int64_t k : {0, 1, -2, 5}) {
      NDArray k_value = array_of<int64_t>({}, {k});
      std::vector<int64_t> expected;
      for (int64_t e = 0; e < count(shape); ++e) {
        Shape at = unravel(e, shape);
        int64_t offset = at[2] - at[1];
        bool keep = upper ? offset >= k : offset <= k;
        expected.push_back(keep ? e : 0);
      }
      auto out = run_op_outputs("Trilu", {&x, &k_value}, {{"upper", Attribute::of_int(upper)}}, 14);
      expect_array<int64_t>(out[0], shape, expected);
    }
  }
}

TEST(TriluOp, DefaultsAreUpperMainDiagonal) {
  NDArray x = iota<float>({3, 3});
  expect_array<float>(run_op("Trilu", {&x}), {3, 3}, {0, 1, 2, 0, 4, 5, 0, 0, 8});
}

}  // namespace
}  // namespace tessel::ops::testing

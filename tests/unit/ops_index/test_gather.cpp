// Gather, GatherElements and GatherND against naive references: axes, negative indices,
// int32 and int64 indices, batch_dims, and bad input.
#include "unit/ops_test_util.h"

namespace tessel::ops::testing {
namespace {

/// An index value as a position on an axis of `extent` (negative counts from the end).
int64_t wrap(int64_t index, int64_t extent) {
  return index < 0 ? index + extent : index;
}

/// Gather reference: out[a.., i.., b..] = data[a.., indices[i..], b..].
std::vector<float> gather_reference(const std::vector<float>& data, const Shape& shape,
                                    const std::vector<int64_t>& indices, const Shape& index_shape,
                                    size_t axis) {
  Shape out(shape.begin(), shape.begin() + axis);
  out.insert(out.end(), index_shape.begin(), index_shape.end());
  out.insert(out.end(), shape.begin() + axis + 1, shape.end());
  return generate<float>(out, [&](const Shape& o) {
    Shape inner(o.begin() + axis, o.begin() + axis + index_shape.size());
    Shape at(o.begin(), o.begin() + axis);
    at.push_back(wrap(indices[ravel(inner, index_shape)], shape[axis]));
    at.insert(at.end(), o.begin() + axis + index_shape.size(), o.end());
    return data[ravel(at, shape)];
  });
}

TEST(Gather, EachAxisWithNegativeIndices) {
  Shape shape{3, 4, 5};
  std::vector<float> data = random_values<float>(shape);
  std::vector<int64_t> indices{0, -1, 2, -3, 1, 1};
  Shape index_shape{2, 3};
  NDArray x = array_of(shape, data), idx = array_of(index_shape, indices);
  for (int64_t axis : {0, 1, 2, -1}) {
    size_t a = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
    NDArray y = run_op("Gather", {&x, &idx}, {{"axis", Attribute::of_int(axis)}});
    Shape out(shape.begin(), shape.begin() + a);
    out.insert(out.end(), index_shape.begin(), index_shape.end());
    out.insert(out.end(), shape.begin() + a + 1, shape.end());
    expect_array(y, out, gather_reference(data, shape, indices, index_shape, a));
  }
}

TEST(Gather, Int32IndicesAndScalarIndex) {
  Shape shape{4, 3};
  std::vector<float> data = random_values<float>(shape);
  NDArray x = array_of(shape, data);
  NDArray idx32 = array_of<int32_t>({3}, {3, -4, 1});
  expect_array(run_op("Gather", {&x, &idx32}, {}, 11), {3, 3},
               gather_reference(data, shape, {3, -4, 1}, {3}, 0));
  NDArray scalar = array_of<int64_t>({}, {-1});
  expect_array(run_op("Gather", {&x, &scalar}, {{"axis", Attribute::of_int(1)}}), {4},
               gather_reference(data, shape, {-1}, {}, 1));
}

TEST(GatherElements, AlongEachAxis) {
  Shape shape{3, 4};
  std::vector<float> data = random_values<float>(shape);
  Shape index_shape{2, 4};
  std::vector<int64_t> indices{0, -1, 2, 1, -3, 0, 1, 2};
  NDArray x = array_of(shape, data), idx = array_of(index_shape, indices);
  NDArray y0 = run_op("GatherElements", {&x, &idx}, {{"axis", Attribute::of_int(0)}});
  expect_array(y0, index_shape, generate<float>(index_shape, [&](const Shape& p) {
                 return data[ravel({wrap(indices[ravel(p, index_shape)], 3), p[1]}, shape)];
               }));
  Shape narrow{3, 2};
  std::vector<int64_t> columns{3, -4, 0, 1, -1, 2};
  NDArray cols = array_of(narrow, columns);
  NDArray y1 = run_op("GatherElements", {&x, &cols}, {{"axis", Attribute::of_int(-1)}});
  expect_array(y1, narrow, generate<float>(narrow, [&](const Shape& p) {
                 return data[ravel({p[0], wrap(columns[ravel(p, narrow)], 4)}, shape)];
               }));
}

TEST(GatherND, FullAndPartialTuples) {
  Shape shape{2, 3, 4};
  std::vector<float> data = random_values<float>(shape);
  NDArray x = array_of(shape, data);
  // Full tuples: one element each.
  NDArray full = array_of<int64_t>({2, 3}, {1, 2, 3, 0, -1, -4});
  expect_array(run_op("GatherND", {&x, &full}), {2},
               std::vector<float>{data[ravel({1, 2, 3}, shape)], data[ravel({0, 2, 0}, shape)]});
  // Tuples of one: whole [3, 4] slices, indices of shape [2, 2, 1].
  NDArray slices = array_of<int32_t>({2, 2, 1}, {1, 0, -1, -2});
  std::vector<int64_t> which{1, 0, 1, 0};
  expect_array(run_op("GatherND", {&x, &slices}), {2, 2, 3, 4},
               generate<float>({2, 2, 3, 4}, [&](const Shape& o) {
                 return data[ravel({which[ravel({o[0], o[1]}, {2, 2})], o[2], o[3]}, shape)];
               }));
}

TEST(GatherND, BatchDims) {
  Shape shape{2, 3, 4};
  std::vector<float> data = random_values<float>(shape);
  NDArray x = array_of(shape, data);
  // batch_dims 1, tuples of 2 per batch entry: indices [2, 2, 2] -> output [2, 2].
  std::vector<int64_t> tuples{0, 1, 2, -1, 1, 3, -3, 0};
  NDArray idx = array_of<int64_t>({2, 2, 2}, tuples);
  NDArray y = run_op("GatherND", {&x, &idx}, {{"batch_dims", Attribute::of_int(1)}});
  expect_array(
      y, {2, 2}, generate<float>({2, 2}, [&](const Shape& o) {
        int64_t base = ravel({o[0], o[1], 0}, {2, 2, 2});
        return data[ravel({o[0], wrap(tuples[base], 3), wrap(tuples[base + 1], 4)}, shape)];
      }));
  // batch_dims 1, tuples of 1: rows per batch entry -> output [2, 4].
  NDArray rows = array_of<int64_t>({2, 1}, {2, -3});
  expect_array(run_op("GatherND", {&x, &rows}, {{"batch_dims", Attribute::of_int(1)}}), {2, 4},
               generate<float>({2, 4}, [&](const Shape& o) {
                 return data[ravel({o[0], o[0] == 0 ? 2 : 0, o[1]}, shape)];
               }));
}

TEST(GatherErrors, BadIndices) {
  NDArray x = array_of<float>({2, 3}, random_values<float>({2, 3}));
  NDArray rank1 = array_of<int64_t>({2}, {0, 1});
  expect_compile_error(
      [&] {
        run_op("GatherElements", {&x, &rank1});
      },
      "indices have rank 1, expected the rank of data, 2");
  NDArray floats = array_of<float>({2}, {0, 1});
  expect_compile_error(
      [&] {
        run_op("Gather", {&x, &floats});
      },
      "input 1 (indices) must be int32 or int64, found float32");
  expect_compile_error(
      [&] {
        run_op("Gather", {&x, &rank1}, {{"axis", Attribute::of_int(2)}});
      },
      "axis 2 is out of range for rank 2");
  NDArray deep = array_of<int64_t>({1, 3}, {0, 0, 0});
  expect_compile_error(
      [&] {
        run_op("GatherND", {&x, &deep});
      },
      "the last dimension of indices [1, 3] is 3, expected a value in [1, 2]");
  NDArray batch = array_of<int64_t>({3, 1}, {0, 0, 0});
  expect_compile_error(
      [&] {
        run_op("GatherND", {&x, &batch}, {{"batch_dims", Attribute::of_int(1)}});
      },
      "batch dimension 0 differs: data [2, 3], indices [3, 1]");
  NDArray wide = array_of<int64_t>({2, 4}, {0, 0, 0, 0, 0, 0, 0, 0});
  expect_compile_error(
      [&] {
        run_op("GatherElements", {&x, &wide});
      },
      "indices shape [2, 4] exceeds data shape [2, 3] in dimension 1");
}

}  // namespace
}  // namespace tessel::ops::testing

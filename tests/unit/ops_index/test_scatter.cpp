// ScatterElements, Scatter and ScatterND against naive references that apply the updates
// one by one in index order: duplicates, reductions, negative indices, bad input.
#include "unit/ops_test_util.h"

namespace tessel::ops::testing {
namespace {

int64_t wrap(int64_t index, int64_t extent) {
  return index < 0 ? index + extent : index;
}

/// Applies `update` to `current` as ONNX reduction `reduction` does.
float apply(const std::string& reduction, float current, float update) {
  if (reduction == "add") return current + update;
  if (reduction == "mul") return current * update;
  return update;
}

std::vector<float> scatter_elements_reference(std::vector<float> data, const Shape& shape,
                                              const std::vector<int64_t>& indices,
                                              const std::vector<float>& updates,
                                              const Shape& update_shape, size_t axis,
                                              const std::string& reduction) {
  for (int64_t k = 0; k < count(update_shape); ++k) {
    Shape at = unravel(k, update_shape);
    at[axis] = wrap(indices[k], shape[axis]);
    float& target = data[ravel(at, shape)];
    target = apply(reduction, target, updates[k]);
  }
  return data;
}

TEST(ScatterElements, DuplicatesWithEachReduction) {
  Shape shape{3, 4}, update_shape{2, 3};
  std::vector<float> data = random_values<float>(shape, 1);
  std::vector<float> updates = random_values<float>(update_shape, 2);
  // Column 1 of row 0 and row 2 is written twice along axis 0, with a negative index once.
  std::vector<int64_t> indices{2, 0, -1, -1, 0, 1};
  NDArray x = array_of(shape, data), idx = array_of(update_shape, indices),
          u = array_of(update_shape, updates);
  for (const char* reduction : {"none", "add", "mul"}) {
    SCOPED_TRACE(reduction);
    NDArray y = run_op("ScatterElements", {&x, &idx, &u},
                       {{"reduction", Attribute::of_string(reduction)}}, 16);
    // Reductions may combine the updates in another order: compare within rounding.
    expect_close(
        y, shape,
        scatter_elements_reference(data, shape, indices, updates, update_shape, 0, reduction));
  }
}

TEST(ScatterElements, LastAxisAndDeprecatedScatter) {
  Shape shape{2, 5}, update_shape{1, 3};
  std::vector<float> data = random_values<float>(shape, 3);
  std::vector<float> updates{1.5f, -2.5f, 4.0f};
  std::vector<int32_t> indices{4, -5, 4};
  NDArray x = array_of(shape, data), idx = array_of(update_shape, indices),
          u = array_of(update_shape, updates);
  std::vector<int64_t> wide(indices.begin(), indices.end());
  std::vector<float> expected =
      scatter_elements_reference(data, shape, wide, updates, update_shape, 1, "none");
  expect_array(run_op("ScatterElements", {&x, &idx, &u}, {{"axis", Attribute::of_int(-1)}}, 13),
               shape, expected);
  expect_array(run_op("Scatter", {&x, &idx, &u}, {{"axis", Attribute::of_int(1)}}, 10), shape,
               expected);
}

std::vector<float> scatter_nd_reference(std::vector<float> data, const Shape& shape,
                                        const std::vector<int64_t>& indices,
                                        const Shape& index_shape, const std::vector<float>& updates,
                                        const std::string& reduction) {
  size_t depth = static_cast<size_t>(index_shape.back());
  int64_t tuples = count(index_shape) / index_shape.back();
  Shape slice(shape.begin() + depth, shape.end());
  for (int64_t t = 0; t < tuples; ++t) {
    for (int64_t s = 0; s < count(slice); ++s) {
      Shape at;
      for (size_t d = 0; d < depth; ++d)
        at.push_back(wrap(indices[t * index_shape.back() + d], shape[d]));
      Shape rest = unravel(s, slice);
      at.insert(at.end(), rest.begin(), rest.end());
      float& target = data[ravel(at, shape)];
      target = apply(reduction, target, updates[t * count(slice) + s]);
    }
  }
  return data;
}

TEST(ScatterND, SliceUpdatesWithDuplicates) {
  Shape shape{4, 2, 3}, index_shape{3, 1}, update_shape{3, 2, 3};
  std::vector<float> data = random_values<float>(shape, 4);
  std::vector<float> updates = random_values<float>(update_shape, 5);
  std::vector<int64_t> indices{1, -1, 1};
  NDArray x = array_of(shape, data), idx = array_of(index_shape, indices),
          u = array_of(update_shape, updates);
  for (const char* reduction : {"none", "add", "mul"}) {
    SCOPED_TRACE(reduction);
    NDArray y =
        run_op("ScatterND", {&x, &idx, &u}, {{"reduction", Attribute::of_string(reduction)}});
    expect_close(y, shape,
                 scatter_nd_reference(data, shape, indices, index_shape, updates, reduction));
  }
}

TEST(ScatterND, ElementUpdatesAndSingleTuple) {
  Shape shape{3, 4};
  std::vector<float> data = random_values<float>(shape, 6);
  Shape index_shape{2, 2, 2};
  std::vector<int64_t> indices{0, 0, 2, -1, 0, 0, 1, 2};
  std::vector<float> updates{1, 2, 3, 4};
  NDArray x = array_of(shape, data), idx = array_of(index_shape, indices),
          u = array_of<float>({2, 2}, updates);
  expect_array(run_op("ScatterND", {&x, &idx, &u}, {}, 11), shape,
               scatter_nd_reference(data, shape, indices, index_shape, updates, "none"));
  NDArray one = array_of<int32_t>({1}, {-2});
  NDArray row = array_of<float>({4}, {9, 8, 7, 6});
  expect_array(run_op("ScatterND", {&x, &one, &row}, {{"reduction", Attribute::of_string("add")}}),
               shape, scatter_nd_reference(data, shape, {-2}, {1}, {9, 8, 7, 6}, "add"));
}

TEST(ScatterErrors, BadInput) {
  NDArray x = array_of<float>({2, 3}, random_values<float>({2, 3}));
  NDArray idx = array_of<int64_t>({1, 2}, {0, 1});
  NDArray u = array_of<float>({1, 2}, {1, 2});
  expect_compile_error(
      [&] {
        run_op("ScatterElements", {&x, &idx, &u}, {{"reduction", Attribute::of_string("max")}});
      },
      "attribute 'reduction' is 'max', expected one of 'none', 'add', 'mul'");
  expect_compile_error(
      [&] {
        run_op("ScatterElements", {&x, &idx, &u}, {{"reduction", Attribute::of_string("add")}}, 13);
      },
      "attribute 'reduction' is 'add', expected one of 'none'");
  NDArray u3 = array_of<float>({1, 3}, {1, 2, 3});
  expect_compile_error(
      [&] {
        run_op("ScatterElements", {&x, &idx, &u3});
      },
      "indices shape [1, 2] differs from updates shape [1, 3]");
  NDArray flat = array_of<int64_t>({2}, {0, 1});
  NDArray u2 = array_of<float>({2}, {1, 2});
  expect_compile_error(
      [&] {
        run_op("ScatterElements", {&x, &flat, &u2});
      },
      "indices have rank 1, expected the rank of data, 2");
  NDArray tuples = array_of<int64_t>({2, 1}, {0, 1});
  expect_compile_error(
      [&] {
        run_op("ScatterND", {&x, &tuples, &u});
      },
      "updates have shape [1, 2], expected [2, 3]");
  expect_compile_error(
      [&] {
        run_op("Scatter", {&x, &idx, &u}, {}, 11);
      },
      "Scatter is deprecated since opset 11");
}

}  // namespace
}  // namespace tessel::ops::testing

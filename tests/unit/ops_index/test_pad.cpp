// Pad against a naive reference: constant / reflect / edge modes, negative pads (cropping),
// the opset 2 attribute form and the opset 11 input form, and bad input.
#include "unit/ops_test_util.h"

namespace tessel::ops::testing {
namespace {

/// numpy.pad's index rule for a position `s` relative to the data on an axis of extent n.
int64_t source_index(const std::string& mode, int64_t s, int64_t n) {
  if (mode == "edge") return std::min(std::max<int64_t>(s, 0), n - 1);
  // reflect: mirror at 0 and n - 1 (the border is not repeated), repeatedly.
  while (s < 0 || s >= n) s = s < 0 ? -s : 2 * (n - 1) - s;
  return s;
}

std::vector<float> pad_reference(const std::vector<float>& data, const Shape& shape,
                                 const std::vector<int64_t>& pads, const std::string& mode,
                                 float value, Shape* out_shape) {
  size_t rank = shape.size();
  out_shape->clear();
  for (size_t d = 0; d < rank; ++d) out_shape->push_back(shape[d] + pads[d] + pads[rank + d]);
  return generate<float>(*out_shape, [&](const Shape& o) {
    Shape at;
    for (size_t d = 0; d < rank; ++d) {
      int64_t s = o[d] - pads[d];
      if (mode == "constant" && (s < 0 || s >= shape[d])) return value;
      at.push_back(mode == "constant" ? s : source_index(mode, s, shape[d]));
    }
    return data[ravel(at, shape)];
  });
}

TEST(Pad, EachModeWithInputs) {
  Shape shape{2, 3, 4};
  std::vector<float> data = random_values<float>(shape);
  std::vector<int64_t> pads{1, 0, 5, 0, 2, -1};  // reflect pads beyond the extent too
  NDArray x = array_of(shape, data), p = array_of<int64_t>({6}, pads);
  NDArray value = array_of<float>({}, {2.5f});
  for (const char* mode : {"constant", "reflect", "edge"}) {
    SCOPED_TRACE(mode);
    Shape out;
    std::vector<float> expected = pad_reference(data, shape, pads, mode, 2.5f, &out);
    NDArray y = run_op("Pad", {&x, &p, &value}, {{"mode", Attribute::of_string(mode)}}, 13);
    expect_array(y, out, expected);
  }
}

TEST(Pad, ConstantDefaultsAndAttributeForm) {
  Shape shape{3, 2};
  std::vector<float> data = random_values<float>(shape);
  std::vector<int64_t> pads{-1, 2, 1, 1};
  NDArray x = array_of(shape, data), p = array_of<int64_t>({4}, pads);
  Shape out;
  std::vector<float> zero_padded = pad_reference(data, shape, pads, "constant", 0, &out);
  expect_array(run_op("Pad", {&x, &p}, {}, 11), out, zero_padded);
  std::vector<float> padded = pad_reference(data, shape, pads, "constant", -7, &out);
  expect_array(run_op("Pad", {&x},
                      {{"pads", Attribute::of_ints(pads)}, {"value", Attribute::of_float(-7)}}, 2),
               out, padded);
}

TEST(Pad, IntegerDataEdge) {
  NDArray x = array_of<int32_t>({1, 3}, {4, 5, 6});
  NDArray p = array_of<int64_t>({4}, {0, 2, 1, 1});
  expect_array(run_op("Pad", {&x, &p}, {{"mode", Attribute::of_string("edge")}}), {2, 6},
               std::vector<int32_t>{4, 4, 4, 5, 6, 6, 4, 4, 4, 5, 6, 6});
}

TEST(PadErrors, BadInput) {
  NDArray x = array_of<float>({2, 3}, random_values<float>({2, 3}));
  NDArray p = array_of<int64_t>({4}, {0, 1, 0, 1});
  expect_compile_error(
      [&] {
        run_op("Pad", {&x, &p}, {{"mode", Attribute::of_string("wrap")}});
      },
      "attribute 'mode' is 'wrap', expected one of 'constant', 'reflect', 'edge'");
  NDArray short_pads = array_of<int64_t>({2}, {1, 1});
  expect_compile_error([&] { run_op("Pad", {&x, &short_pads}); }, "pads have 2 values, expected 4");
  NDArray crop = array_of<int64_t>({4}, {-2, 0, -1, 0});
  expect_compile_error(
      [&] {
        run_op("Pad", {&x, &crop});
      },
      "pads [-2, 0, -1, 0] crop dimension 0 of [2, 3] below zero");
}

}  // namespace
}  // namespace tessel::ops::testing

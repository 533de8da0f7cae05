// Resize and Upsample against a naive separable reference written from the ONNX operator
// description (per axis: output coordinate -> input coordinate -> weighted neighbours), plus
// hand-computed examples and bad input.
#include "unit/ops_test_util.h"

namespace tessel::ops::testing {
namespace {

struct ResizeCase {
  std::string mode = "nearest";
  std::string coordinates = "half_pixel";
  std::string nearest = "round_prefer_floor";
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0;
  std::vector<double> roi;  // starts then ends, tf_crop_and_resize only
};

/// Keys' cubic kernel at distance d.
double cubic_kernel(double d, double a) {
  d = std::abs(d);
  if (d <= 1) return (a + 2) * d * d * d - (a + 3) * d * d + 1;
  if (d < 2) return a * d * d * d - 5 * a * d * d + 8 * a * d - 4 * a;
  return 0;
}

/// The input positions and weights that output coordinate `x` of one axis reads; sets
/// `outside` when tf_crop_and_resize maps it outside the input.
std::vector<std::pair<int64_t, double>> reference_taps(const ResizeCase& c, int64_t x, int64_t in,
                                                       double scale, size_t axis, size_t rank,
                                                       bool* outside) {
  double length = scale * static_cast<double>(in);
  double xo = 0;
  if (c.coordinates == "half_pixel") xo = (x + 0.5) / scale - 0.5;
  if (c.coordinates == "pytorch_half_pixel") xo = length > 1 ? (x + 0.5) / scale - 0.5 : -0.5;
  if (c.coordinates == "align_corners") xo = length > 1 ? x * (in - 1.0) / (length - 1) : 0;
  if (c.coordinates == "asymmetric") xo = x / scale;
  if (c.coordinates == "tf_half_pixel_for_nn") xo = (x + 0.5) / scale;
  if (c.coordinates == "tf_crop_and_resize") {
    double start = c.roi[axis], end = c.roi[rank + axis];
    xo = length > 1 ? start * (in - 1) + x * (end - start) * (in - 1) / (length - 1)
                    : 0.5 * (start + end) * (in - 1);
    if (xo < 0 || xo > in - 1) *outside = true;
  }
  auto clamp = [&](int64_t i) { return std::min(std::max<int64_t>(i, 0), in - 1); };
  int64_t below = static_cast<int64_t>(std::floor(xo));
  double r = xo - below;
  if (c.mode == "nearest") {
    int64_t pick = below;
    if (r > 0) {
      if (c.nearest == "round_prefer_floor") pick = r <= 0.5 ? below : below + 1;
      if (c.nearest == "round_prefer_ceil") pick = r < 0.5 ? below : below + 1;
      if (c.nearest == "ceil") pick = below + 1;
    }
    return {{clamp(pick), 1.0}};
  }
  if (c.mode == "linear") return {{clamp(below), 1 - r}, {clamp(below + 1), r}};
  std::vector<std::pair<int64_t, double>> taps;
  double total = 0;
  for (int64_t i = below - 1; i <= below + 2; ++i) {
    double w = cubic_kernel(xo - static_cast<double>(i), c.cubic_a);
    if (c.exclude_outside && (i < 0 || i >= in)) w = 0;
    total += w;
    taps.push_back({clamp(i), w});
  }
  if (c.exclude_outside)
    for (auto& tap : taps) tap.second /= total;
  return taps;
}

std::vector<double> resize_reference(const ResizeCase& c, const std::vector<float>& data,
                                     const Shape& shape, const Shape& out,
                                     const std::vector<double>& scales) {
  size_t rank = shape.size();
  return generate<double>(out, [&](const Shape& o) {
    bool outside = false;
    std::vector<std::vector<std::pair<int64_t, double>>> taps;
    for (size_t d = 0; d < rank; ++d)
      taps.push_back(reference_taps(c, o[d], shape[d], scales[d], d, rank, &outside));
    if (outside) return c.extrapolation;
    double sum = 0;
    Shape choice(rank, 0);  // odometer over every combination of taps
    while (true) {
      double w = 1;
      Shape at;
      for (size_t d = 0; d < rank; ++d) {
        w *= taps[d][choice[d]].second;
        at.push_back(taps[d][choice[d]].first);
      }
      sum += w * data[ravel(at, shape)];
      size_t d = rank;
      while (d > 0 && ++choice[d - 1] == static_cast<int64_t>(taps[d - 1].size())) choice[--d] = 0;
      if (d == 0) break;
    }
    return sum;
  });
}

Attributes resize_attributes(const ResizeCase& c) {
  return {{"mode", Attribute::of_string(c.mode)},
          {"coordinate_transformation_mode", Attribute::of_string(c.coordinates)},
          {"nearest_mode", Attribute::of_string(c.nearest)},
          {"cubic_coeff_a", Attribute::of_float(c.cubic_a)},
          {"exclude_outside", Attribute::of_int(c.exclude_outside)},
          {"extrapolation_value", Attribute::of_float(c.extrapolation)}};
}

/// Runs Resize with `scales` and compares with the reference.
void check_scales(const ResizeCase& c, const Shape& shape, const std::vector<float>& scales) {
  std::vector<float> data = random_values<float>(shape, 7);
  NDArray x = array_of(shape, data), s = array_of<float>({4}, scales);
  Shape out;
  std::vector<double> wide;
  for (size_t d = 0; d < shape.size(); ++d) {
    wide.push_back(scales[d]);
    out.push_back(static_cast<int64_t>(std::floor(wide[d] * static_cast<double>(shape[d]))));
  }
  NDArray roi = array_of<float>({8}, {0, 0, 0, 0, 1, 1, 1, 1});
  expect_close(run_op("Resize", {&x, &roi, &s}, resize_attributes(c), 13), out,
               resize_reference(c, data, shape, out, wide));
}

/// Runs Resize with `sizes` and compares with the reference.
void check_sizes(const ResizeCase& c, const Shape& shape, const Shape& sizes) {
  std::vector<float> data = random_values<float>(shape, 8);
  NDArray x = array_of(shape, data), s = array_of<int64_t>({4}, sizes);
  std::vector<float> roi_values(c.roi.begin(), c.roi.end());
  if (roi_values.empty()) roi_values = {0, 0, 0, 0, 1, 1, 1, 1};
  NDArray roi = array_of<float>({8}, roi_values);
  std::vector<double> scales;
  for (size_t d = 0; d < shape.size(); ++d)
    scales.push_back(static_cast<double>(sizes[d]) / static_cast<double>(shape[d]));
  ResizeCase rounded = c;  // the reference reads the roi as the op does: as float32
  rounded.roi.assign(roi_values.begin(), roi_values.end());
  expect_close(run_op("Resize", {&x, &roi, nullptr, &s}, resize_attributes(c), 13), sizes,
               resize_reference(rounded, data, shape, sizes, scales));
}

TEST(Resize, NearestEveryRoundingAndCoordinateMode) {
  for (const char* coordinates :
       {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"}) {
    for (const char* nearest : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
      SCOPED_TRACE(std::string(coordinates) + " " + nearest);
      ResizeCase c;
      c.coordinates = coordinates;
      c.nearest = nearest;
      check_sizes(c, {1, 2, 4, 5}, {1, 2, 7, 3});
      check_scales(c, {1, 1, 4, 4}, {1, 1, 0.5f, 2.5f});
    }
  }
}

TEST(Resize, LinearAndCubic) {
  for (const char* mode : {"linear", "cubic"}) {
    for (const char* coordinates :
         {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"}) {
      SCOPED_TRACE(std::string(mode) + " " + coordinates);
      ResizeCase c;
      c.mode = mode;
      c.coordinates = coordinates;
      check_scales(c, {1, 2, 4, 4}, {1, 1, 2, 0.75f});
      check_sizes(c, {2, 1, 3, 5}, {2, 1, 8, 1});
    }
  }
}

TEST(Resize, CubicExcludeOutside) {
  ResizeCase c;
  c.mode = "cubic";
  c.cubic_a = -0.5;
  c.exclude_outside = true;
  check_scales(c, {1, 1, 4, 4}, {1, 1, 0.8f, 1.75f});
}

TEST(Resize, CropAndResizeExtrapolates) {
  ResizeCase c;
  c.mode = "linear";
  c.coordinates = "tf_crop_and_resize";
  c.extrapolation = 10;
  c.roi = {0, 0, 0.4, 0.6, 1, 1, 1.2, 1.7};
  check_sizes(c, {1, 1, 4, 4}, {1, 1, 3, 3});
}

TEST(Resize, HandComputedLinear) {
  NDArray x = array_of<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  NDArray scales = array_of<float>({4}, {1, 1, 2, 2});
  NDArray y = run_op("Resize", {&x, nullptr, &scales}, {{"mode", Attribute::of_string("linear")}});
  expect_close(y, {1, 1, 4, 4},
               std::vector<double>{1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3,
                                   3.25, 3.75, 4});
}

TEST(Resize, Opset10AndUpsampleRoundDownWhenGrowing) {
  NDArray x = array_of<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  NDArray scales = array_of<float>({4}, {1, 1, 2, 3});
  std::vector<float> expected{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2,
                              3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4};
  expect_array(run_op("Resize", {&x, &scales}, {}, 10), {1, 1, 4, 6}, expected);
  expect_array(run_op("Upsample", {&x, &scales}, {}, 9), {1, 1, 4, 6}, expected);
  expect_array(run_op("Upsample", {&x}, {{"scales", Attribute::of_floats({1, 1, 2, 3})}}, 7),
               {1, 1, 4, 6}, expected);
  // Linear upsampling maps x to x / scale and repeats the border.
  NDArray two = array_of<float>({4}, {1, 1, 1, 2});
  expect_close(run_op("Upsample", {&x, &two}, {{"mode", Attribute::of_string("linear")}}, 9),
               {1, 1, 2, 4}, std::vector<double>{1, 1.5, 2, 2, 3, 3.5, 4, 4});
  // Shrinking rounds up: x = 1 maps to 1 / 0.6 = 1.67 -> 2.
  NDArray row = array_of<float>({1, 1, 1, 4}, {1, 2, 3, 4});
  NDArray shrink = array_of<float>({4}, {1, 1, 1, 0.6f});
  expect_array(run_op("Resize", {&row, &shrink}, {}, 10), {1, 1, 1, 2}, std::vector<float>{1, 3});
}

TEST(Resize, NearestKeepsIntegerData) {
  // Asymmetric coordinates x / 2 = 0, 0.5, 1, 1.5, ...: ties round down by default.
  NDArray x = array_of<int32_t>({1, 3}, {7, -8, 9});
  NDArray sizes = array_of<int64_t>({2}, {2, 6});
  expect_array(run_op("Resize", {&x, nullptr, nullptr, &sizes},
                      {{"coordinate_transformation_mode", Attribute::of_string("asymmetric")}}),
               {2, 6}, std::vector<int32_t>{7, 7, -8, -8, 9, 9, 7, 7, -8, -8, 9, 9});
}

TEST(ResizeErrors, BadInput) {
  NDArray x = array_of<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  NDArray scales = array_of<float>({4}, {1, 1, 2, 2});
  NDArray sizes = array_of<int64_t>({4}, {1, 1, 4, 4});
  expect_compile_error(
      [&] {
        run_op("Resize", {&x, nullptr, &scales}, {{"mode", Attribute::of_string("area")}});
      },
      "attribute 'mode' is 'area', expected one of 'nearest', 'linear', 'cubic'");
  expect_compile_error(
      [&] {
        run_op("Resize", {&x, nullptr, &scales},
               {{"coordinate_transformation_mode", Attribute::of_string("tf_half_pixel_for_nn")}});
      },
      "attribute 'coordinate_transformation_mode' is 'tf_half_pixel_for_nn'");
  expect_compile_error(
      [&] {
        run_op("Resize", {&x, nullptr, &scales, &sizes});
      },
      "exactly one of the inputs 'scales' and 'sizes' must be given");
  NDArray three = array_of<float>({3}, {1, 2, 2});
  expect_compile_error(
      [&] {
        run_op("Resize", {&x, nullptr, &three});
      },
      "scales has 3 values, expected one per input dimension (4)");
  expect_compile_error(
      [&] {
        run_op("Resize", {&x, &scales}, {{"mode", Attribute::of_string("cubic")}}, 10);
      },
      "attribute 'mode' is 'cubic', expected one of 'nearest', 'linear'");
  expect_compile_error(
      [&] {
        run_op("Upsample", {&x, &scales}, {}, 10);
      },
      "Upsample is deprecated since opset 10");
}

}  // namespace
}  // namespace tessel::ops::testing

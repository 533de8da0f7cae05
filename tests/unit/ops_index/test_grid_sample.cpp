// GridSample against a naive reference of PyTorch's grid_sample (which ONNX follows): every
// mode, padding mode and align_corners setting on a small image, and bad input.
#include "unit/ops_test_util.h"

namespace tessel::ops::testing {
namespace {

struct Sampling {
  std::string mode, padding;
  bool align_corners;
};

/// Maps a normalised coordinate in [-1, 1] to pixel units.
double unnormalize(double v, int64_t size, bool align) {
  return align ? (v + 1) / 2 * (size - 1) : ((v + 1) * size - 1) / 2;
}

/// Mirrors `v` into [low, high] (repeatedly).
double mirror(double v, double low, double high) {
  if (low == high) return 0;
  double span = high - low;
  double distance = std::abs(v - low);
  double flips = std::floor(distance / span);
  double extra = std::fmod(distance, span);
  return static_cast<int64_t>(flips) % 2 == 0 ? low + extra : high - extra;
}

/// The coordinate after the padding mode folds it into the image (zeros: unchanged).
double fold(const Sampling& s, double v, int64_t size) {
  if (s.padding == "zeros") return v;
  if (s.padding == "reflection")
    v = s.align_corners ? mirror(v, 0, size - 1.0) : mirror(v, -0.5, size - 0.5);
  return std::min(std::max(v, 0.0), size - 1.0);
}

std::vector<double> grid_sample_reference(const Sampling& s, const std::vector<float>& x,
                                          const Shape& shape, const std::vector<float>& grid,
                                          const Shape& grid_shape) {
  int64_t h = shape[2], w = shape[3];
  Shape out{shape[0], shape[1], grid_shape[1], grid_shape[2]};
  return generate<double>(out, [&](const Shape& o) {
    auto pixel = [&](int64_t y, int64_t x_) -> double {
      if (y < 0 || y >= h || x_ < 0 || x_ >= w) return 0;
      return x[ravel({o[0], o[1], y, x_}, shape)];
    };
    double gx = grid[ravel({o[0], o[2], o[3], 0}, grid_shape)];
    double gy = grid[ravel({o[0], o[2], o[3], 1}, grid_shape)];
    double ix = unnormalize(gx, w, s.align_corners), iy = unnormalize(gy, h, s.align_corners);
    if (s.mode == "bicubic") {
      double x0 = std::floor(ix), y0 = std::floor(iy), sum = 0;
      auto weight = [](double d) {
        const double a = -0.75;
        d = std::abs(d);
        return d <= 1 ? ((a + 2) * d - (a + 3)) * d * d + 1
                      : ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
      };
      for (int dy = -1; dy <= 2; ++dy)
        for (int dx = -1; dx <= 2; ++dx) {
          auto ty = static_cast<int64_t>(fold(s, y0 + dy, h));
          auto tx = static_cast<int64_t>(fold(s, x0 + dx, w));
          sum += weight(iy - (y0 + dy)) * weight(ix - (x0 + dx)) * pixel(ty, tx);
        }
      return sum;
    }
    ix = fold(s, ix, w);
    iy = fold(s, iy, h);
    if (s.mode == "nearest")
      return pixel(static_cast<int64_t>(std::nearbyint(iy)),
                   static_cast<int64_t>(std::nearbyint(ix)));
    double x0 = std::floor(ix), y0 = std::floor(iy), tx = ix - x0, ty = iy - y0;
    auto i = static_cast<int64_t>(x0), j = static_cast<int64_t>(y0);
    return (1 - ty) * ((1 - tx) * pixel(j, i) + tx * pixel(j, i + 1)) +
           ty * ((1 - tx) * pixel(j + 1, i) + tx * pixel(j + 1, i + 1));
  });
}

TEST(GridSample, EveryModePaddingAndAlignment) {
  Shape shape{2, 2, 3, 4}, grid_shape{2, 3, 5, 2};
  std::vector<float> x = random_values<float>(shape, 9);
  std::vector<float> grid = random_values<float>(grid_shape, 10);
  for (float& g : grid) g *= 0.13f;  // in [-1.3, 1.3): some positions fall outside
  grid[0] = 0.5f;                    // an exact tie for nearest rounding: ix = 2.5 (4 wide)
  NDArray xs = array_of(shape, x), gs = array_of(grid_shape, grid);
  for (const char* mode : {"bilinear", "nearest", "bicubic"})
    for (const char* padding : {"zeros", "border", "reflection"})
      for (bool align : {false, true}) {
        SCOPED_TRACE(std::string(mode) + " " + padding + (align ? " aligned" : ""));
        Sampling s{mode, padding, align};
        NDArray y = run_op("GridSample", {&xs, &gs},
                           {{"mode", Attribute::of_string(mode)},
                            {"padding_mode", Attribute::of_string(padding)},
                            {"align_corners", Attribute::of_int(align)}},
                           16);
        expect_close(y, {2, 2, 3, 5}, grid_sample_reference(s, x, shape, grid, grid_shape), 1e-4);
      }
}

TEST(GridSampleErrors, BadInput) {
  NDArray x = array_of<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  NDArray grid = array_of<float>({1, 1, 1, 3}, {0, 0, 0});
  expect_compile_error(
      [&] {
        run_op("GridSample", {&x, &grid}, {}, 16);
      },
      "grid has shape [1, 1, 1, 3], expected [1, H_out, W_out, 2]");
  NDArray ok = array_of<float>({1, 1, 1, 2}, {0, 0});
  expect_compile_error(
      [&] {
        run_op("GridSample", {&x, &ok}, {{"mode", Attribute::of_string("linear")}}, 16);
      },
      "attribute 'mode' is 'linear', expected one of 'bilinear', 'nearest', 'bicubic'");
}

}  // namespace
}  // namespace tessel::ops::testing

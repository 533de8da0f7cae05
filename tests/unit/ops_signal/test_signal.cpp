// The signal operators: windows against their formulas written out, MelWeightMatrix's
// triangles, and the errors of bad transforms (the transforms' numbers are checked against
// NumPy's FFT in tests/onnx-cases/signal and against the ONNX node suite).
#include <cmath>
#include <numbers>

#include "unit/ops_test_util.h"

namespace tessel::ops::testing {
namespace {

NDArray scalar(DType dtype, double v) {
  return make_array(dtype, {}, {v});
}

TEST(SignalOps, WindowsMatchTheirFormulas) {
  NDArray size = scalar(kI64, 7);
  for (int periodic : {0, 1}) {
    double n_max = periodic ? 7 : 6;
    Attributes attrs = {{"periodic", Attribute::of_int(periodic)},
                        {"output_datatype", Attribute::of_int(11)}};  // float64
    NDArray hann = run_op("HannWindow", {&size}, attrs);
    NDArray hamming = run_op("HammingWindow", {&size}, attrs);
    NDArray blackman = run_op("BlackmanWindow", {&size}, attrs);
    ASSERT_EQ(hann.dtype(), kF64);
    for (int n = 0; n < 7; ++n) {
      double x = 2 * std::numbers::pi * n / n_max;
      EXPECT_NEAR(element(hann, n), 0.5 - 0.5 * std::cos(x), 1e-12) << n;
      EXPECT_NEAR(element(hamming, n), 25.0 / 46 - 21.0 / 46 * std::cos(x), 1e-12) << n;
      EXPECT_NEAR(element(blackman, n), 0.42 - 0.5 * std::cos(x) + 0.08 * std::cos(2 * x), 1e-12)
          << n;
    }
  }
}

TEST(SignalOps, MelFiltersAreTrianglesPeakingAtOne) {
  NDArray bins = scalar(kI32, 5), dft = scalar(kI32, 64), rate = scalar(kI32, 16000);
  NDArray low = scalar(kF32, 100), high = scalar(kF32, 7000);
  NDArray m = run_op("MelWeightMatrix", {&bins, &dft, &rate, &low, &high});
  ASSERT_EQ(m.shape(), (Shape{33, 5}));
  for (int64_t i = 0; i < 5; ++i) {
    // Each column rises to 1 and falls back: non-zero on one run of rows, peak 1.
    double peak = 0;
    int runs = 0;
    bool inside = false;
    for (int64_t j = 0; j < 33; ++j) {
      double w = element(m, j * 5 + i);
      EXPECT_GE(w, 0.0);
      EXPECT_LE(w, 1.0);
      peak = std::max(peak, w);
      runs += w > 0 && !inside;
      inside = w > 0;
    }
    EXPECT_EQ(peak, 1.0) << "filter " << i;
    EXPECT_EQ(runs, 1) << "filter " << i;
  }
}

TEST(SignalOps, BadTransformsAreRefused) {
  NDArray x = make_array(kF32, {1, 8, 1}, std::vector<double>(8, 1.0));
  expect_compile_error(
      [&] {
        run_op("DFT", {&x}, {{"axis", Attribute::of_int(-1)}});
      },
      "attribute 'axis' -1 must name an axis of [1, 8, 1] other than the last");
  expect_compile_error(
      [&] {
        run_op("DFT", {&x},
               {{"inverse", Attribute::of_int(1)}, {"onesided", Attribute::of_int(1)}});
      },
      "an inverse transform cannot be onesided");
  NDArray three_parts = make_array(kF32, {1, 4, 3}, std::vector<double>(12, 1.0));
  expect_compile_error([&] { run_op("DFT", {&three_parts}); },
                       "the last of 1 (real) or 2 (complex) parts");
  NDArray step = scalar(kI64, 2), long_frame = scalar(kI64, 9), frame = scalar(kI64, 4);
  expect_compile_error(
      [&] {
        run_op("STFT", {&x, &step, nullptr, &long_frame});
      },
      "frames of 9 samples do not fit a signal of 8");
  NDArray window = make_array(kF32, {3}, {1, 1, 1});
  expect_compile_error(
      [&] {
        run_op("STFT", {&x, &step, &window, &frame});
      },
      "frame_length 4 differs from the window's length 3");
  NDArray bins = scalar(kI32, 4), dft = scalar(kI32, 16), rate = scalar(kI32, 8000);
  NDArray low = scalar(kF32, 0), high = scalar(kF32, 8000);
  expect_compile_error(
      [&] {
        run_op("MelWeightMatrix", {&bins, &dft, &rate, &low, &high});
      },
      "the band exceeds half the sample rate");
  NDArray negative = scalar(kI64, -2);
  expect_compile_error([&] { run_op("HannWindow", {&negative}); },
                       "input 'size' is -2, expected >= 0");
}

}  // namespace
}  // namespace tessel::ops::testing

// BatchNormalization (inference and training forms), InstanceNormalization,
// LayerNormalization (with its Mean / InvStdDev outputs), MeanVarianceNormalization, LRN and
// LpNormalization against naive references.
#include <functional>

#include "reduction_test_util.h"
#include "support/error.h"

namespace tessel::ops::testing {
namespace {

/// Mean and population variance of the elements of `x` whose position satisfies `in_group`.
std::pair<double, double> moments(const Values& x, const Shape& shape,
                                  const std::function<bool(const Shape&)>& in_group) {
  double sum = 0, n = 0;
  for (int64_t i = 0; i < count(shape); ++i)
    if (in_group(unravel(i, shape))) {
      sum += x[static_cast<size_t>(i)];
      n += 1;
    }
  double mean = sum / n, var = 0;
  for (int64_t i = 0; i < count(shape); ++i)
    if (in_group(unravel(i, shape))) {
      double d = x[static_cast<size_t>(i)] - mean;
      var += d * d / n;
    }
  return {mean, var};
}

struct ChannelParams {
  Values scale, bias, mean, var;
};

ChannelParams random_params(int64_t channels, unsigned seed) {
  return {stored(kF32, random_values<double>({channels}, seed)),
          stored(kF32, random_values<double>({channels}, seed + 1)),
          stored(kF32, random_values<double>({channels}, seed + 2)),
          stored(kF32, random_values<double>({channels}, seed + 3, 0.1, 2))};
}

TEST(BatchNorm, InferenceUsesTheGivenStatistics) {
  Shape shape{2, 3, 4, 5};
  Values x = stored(kF32, random_values<double>({count(shape)}, 1));
  ChannelParams p = random_params(3, 10);
  NDArray input = make_array(kF32, shape, x), scale = make_array(kF32, {3}, p.scale),
          bias = make_array(kF32, {3}, p.bias), mean = make_array(kF32, {3}, p.mean),
          var = make_array(kF32, {3}, p.var);
  double eps = 0.01;
  Values expected;
  for (int64_t i = 0; i < count(shape); ++i) {
    auto c = static_cast<size_t>(unravel(i, shape)[1]);
    expected.push_back(p.scale[c] * (x[static_cast<size_t>(i)] - p.mean[c]) /
                           std::sqrt(p.var[c] + eps) +
                       p.bias[c]);
  }
  for (int opset : {7, 9, 14, 15}) {
    SCOPED_TRACE("opset " + std::to_string(opset));
    std::vector<NDArray> out =
        run_op_outputs("BatchNormalization", {&input, &scale, &bias, &mean, &var},
                       {{"epsilon", Attribute::of_float(eps)}}, opset);
    expect_array(out[0], kF32, shape, expected, 1e-5, 1e-5);
  }
}

TEST(BatchNorm, TrainingModeNormalisesByBatchStatisticsAndUpdatesRunningOnes) {
  Shape shape{2, 3, 2, 3};
  Values x = stored(kF32, random_values<double>({count(shape)}, 2));
  ChannelParams p = random_params(3, 20);
  NDArray input = make_array(kF32, shape, x), scale = make_array(kF32, {3}, p.scale),
          bias = make_array(kF32, {3}, p.bias), mean = make_array(kF32, {3}, p.mean),
          var = make_array(kF32, {3}, p.var);
  double momentum = 0.8, eps = 1e-5;
  std::vector<NDArray> out = run_op_outputs(
      "BatchNormalization", {&input, &scale, &bias, &mean, &var},
      {{"training_mode", Attribute::of_int(1)}, {"momentum", Attribute::of_float(momentum)}}, 15,
      3);
  ASSERT_EQ(out.size(), 3u);
  Values y(x.size()), running_mean, running_var;
  for (int64_t c = 0; c < 3; ++c) {
    auto [m, v] = moments(x, shape, [&](const Shape& at) { return at[1] == c; });
    auto k = static_cast<size_t>(c);
    running_mean.push_back(p.mean[k] * momentum + m * (1 - momentum));
    running_var.push_back(p.var[k] * momentum + v * (1 - momentum));
    for (int64_t i = 0; i < count(shape); ++i)
      if (unravel(i, shape)[1] == c)
        y[static_cast<size_t>(i)] =
            p.scale[k] * (x[static_cast<size_t>(i)] - m) / std::sqrt(v + eps) + p.bias[k];
  }
  expect_array(out[0], kF32, shape, y, 1e-4, 1e-5);
  expect_array(out[1], kF32, {3}, running_mean, 1e-5, 1e-6);
  expect_array(out[2], kF32, {3}, running_var, 1e-5, 1e-6);
}

TEST(BatchNorm, TrainingOutputsBeforeOpset14AndBadShapesAreCompileErrors) {
  NDArray x = make_array(kF32, {2, 3, 2}, random_values<double>({12}, 3));
  NDArray c = make_array(kF32, {3}, {1, 1, 1}), wrong = make_array(kF32, {2}, {1, 1});
  EXPECT_THROW(run_op_outputs("BatchNormalization", {&x, &c, &c, &c, &c}, {}, 9, 3), CompileError);
  EXPECT_THROW(run_op("BatchNormalization", {&x, &c, &c, &wrong, &c}, {}, 15), CompileError);
}

TEST(InstanceNorm, NormalisesEachChannelOfEachSample) {
  Shape shape{2, 3, 4, 5};
  Values x = stored(kF32, random_values<double>({count(shape)}, 4));
  ChannelParams p = random_params(3, 30);
  NDArray input = make_array(kF32, shape, x), scale = make_array(kF32, {3}, p.scale),
          bias = make_array(kF32, {3}, p.bias);
  double eps = 0.01;
  Values expected(x.size());
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 3; ++c) {
      auto [m, v] = moments(x, shape, [&](const Shape& at) { return at[0] == n && at[1] == c; });
      auto k = static_cast<size_t>(c);
      for (int64_t i = 0; i < count(shape); ++i) {
        Shape at = unravel(i, shape);
        if (at[0] == n && at[1] == c)
          expected[static_cast<size_t>(i)] =
              p.scale[k] * (x[static_cast<size_t>(i)] - m) / std::sqrt(v + eps) + p.bias[k];
      }
    }
  std::vector<NDArray> out = run_op_outputs("InstanceNormalization", {&input, &scale, &bias},
                                            {{"epsilon", Attribute::of_float(eps)}}, 6);
  expect_array(out[0], kF32, shape, expected, 1e-4, 1e-5);
}

TEST(LayerNorm, NormalisesTheTrailingAxesWithBroadcastScaleAndBias) {
  Shape shape{2, 3, 4};
  Values x = stored(kF32, random_values<double>({count(shape)}, 5));
  for (int64_t axis : {0, 1, 2, -1, -2}) {
    auto a = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
    Shape norm_shape(shape.begin() + static_cast<int64_t>(a), shape.end());
    Values w = stored(kF32, random_values<double>({count(norm_shape)}, 40));
    Values b = stored(kF32, random_values<double>({count(norm_shape)}, 41));
    NDArray input = make_array(kF32, shape, x), scale = make_array(kF32, norm_shape, w),
            bias = make_array(kF32, norm_shape, b);
    SCOPED_TRACE("axis " + std::to_string(axis));
    std::vector<NDArray> out = run_op_outputs("LayerNormalization", {&input, &scale, &bias},
                                              {{"axis", Attribute::of_int(axis)}}, 17, 3);
    int64_t rows = count(Shape(shape.begin(), shape.begin() + static_cast<int64_t>(a)));
    int64_t cols = count(norm_shape);
    Values y(x.size()), means, inv_stds;
    for (int64_t r = 0; r < rows; ++r) {
      Shape row_shape{rows, cols};
      auto [m, v] = moments(x, row_shape, [&](const Shape& at) { return at[0] == r; });
      double inv = 1 / std::sqrt(v + 1e-5);
      means.push_back(m);
      inv_stds.push_back(inv);
      for (int64_t j = 0; j < cols; ++j) {
        auto i = static_cast<size_t>(r * cols + j);
        y[i] = (x[i] - m) * inv * w[static_cast<size_t>(j)] + b[static_cast<size_t>(j)];
      }
    }
    Shape stat_shape = shape;
    for (size_t d = a; d < shape.size(); ++d) stat_shape[d] = 1;
    expect_array(out[0], kF32, shape, y, 1e-4, 1e-5);
    expect_array(out[1], kF32, stat_shape, means, 1e-5, 1e-6);
    expect_array(out[2], kF32, stat_shape, inv_stds, 1e-4, 1e-5);
  }
}

TEST(LayerNorm, LargeSingleOutputRunsRowsInParallel) {
  Shape shape{128, 300};
  Values x = stored(kF32, random_values<double>({count(shape)}, 14));
  Values w = stored(kF32, random_values<double>({300}, 15)),
         b = stored(kF32, random_values<double>({300}, 16));
  NDArray input = make_array(kF32, shape, x), scale = make_array(kF32, {300}, w),
          bias = make_array(kF32, {300}, b);
  InspectedRun run = run_and_inspect("LayerNormalization", {&input, &scale, &bias}, {}, 17);
  EXPECT_NE(run.ir.find("parallel"), std::string::npos);
  Values expected(x.size());
  for (int64_t r = 0; r < 128; ++r) {
    auto [m, v] = moments(x, shape, [&](const Shape& at) { return at[0] == r; });
    for (size_t j = 0; j < 300; ++j) {
      auto i = static_cast<size_t>(r * 300) + j;
      expected[i] = (x[i] - m) / std::sqrt(v + 1e-5) * w[j] + b[j];
    }
  }
  expect_array(run.outputs[0], kF32, shape, expected, 1e-4, 1e-5);
}

TEST(LayerNorm, ScaleOfOneElementBroadcastsAndBiasIsOptional) {
  Shape shape{2, 3};
  Values x{1, 2, 4, -1, 0, 3};
  NDArray input = make_array(kF32, shape, x), scale = make_array(kF32, {1}, {2});
  std::vector<NDArray> out = run_op_outputs("LayerNormalization", {&input, &scale}, {}, 17);
  Values expected;
  for (int r = 0; r < 2; ++r) {
    Values row(x.begin() + r * 3, x.begin() + r * 3 + 3);
    auto [m, v] = moments(row, {3}, [](const Shape&) { return true; });
    for (double e : row) expected.push_back(2 * (e - m) / std::sqrt(v + 1e-5));
  }
  expect_array(out[0], kF32, shape, expected, 1e-4, 1e-5);
  NDArray bad = make_array(kF32, {2}, {1, 1});
  EXPECT_THROW(run_op("LayerNormalization", {&input, &bad}, {}, 17), CompileError);
}

TEST(LayerNorm, Float16ComputesInFloat32) {
  Shape shape{4, 8};
  Values x = random_values<double>({count(shape)}, 17);
  NDArray input = make_array(kF16, shape, x);
  Values rounded = elements(input);
  NDArray scale = make_array(kF16, {8}, Values(8, 1.0));
  std::vector<NDArray> out = run_op_outputs("LayerNormalization", {&input, &scale}, {}, 17, 2);
  Values expected, means;
  for (int64_t r = 0; r < 4; ++r) {
    auto [m, v] = moments(rounded, shape, [&](const Shape& at) { return at[0] == r; });
    means.push_back(m);
    for (size_t j = 0; j < 8; ++j)
      expected.push_back((rounded[static_cast<size_t>(r * 8) + j] - m) / std::sqrt(v + 1e-5));
  }
  expect_array(out[0], kF16, shape, expected, 2e-3, 2e-3);
  expect_array(out[1], kF32, {4, 1}, means, 1e-5, 1e-6);  // stash_type 1: float32 statistics
}

TEST(MeanVarianceNorm, DefaultAndExplicitAxes) {
  Shape shape{2, 3, 2, 2};
  Values x = stored(kF32, random_values<double>({count(shape)}, 6));
  NDArray input = make_array(kF32, shape, x);
  auto reference = [&](const std::function<bool(const Shape&, const Shape&)>& same_group) {
    Values y(x.size());
    for (int64_t i = 0; i < count(shape); ++i) {
      Shape at = unravel(i, shape);
      auto [m, v] = moments(x, shape, [&](const Shape& other) { return same_group(at, other); });
      y[static_cast<size_t>(i)] = (x[static_cast<size_t>(i)] - m) / (std::sqrt(v) + 1e-9);
    }
    return y;
  };
  expect_array(run_op("MeanVarianceNormalization", {&input}, {}, 13), kF32, shape,
               reference([](const Shape& a, const Shape& b) { return a[1] == b[1]; }), 1e-4, 1e-5);
  expect_array(
      run_op("MeanVarianceNormalization", {&input}, {{"axes", Attribute::of_ints({-1, 1})}}, 9),
      kF32, shape,
      reference([](const Shape& a, const Shape& b) { return a[0] == b[0] && a[2] == b[2]; }), 1e-4,
      1e-5);
}

TEST(LRN, OddAndEvenWindows) {
  Shape shape{2, 5, 3, 2};
  Values x = stored(kF32, random_values<double>({count(shape)}, 7));
  NDArray input = make_array(kF32, shape, x);
  for (int64_t size : {1, 3, 4}) {
    SCOPED_TRACE("size " + std::to_string(size));
    double alpha = 0.02, beta = 0.6, bias = 1.5;
    Values expected;
    for (int64_t i = 0; i < count(shape); ++i) {
      Shape at = unravel(i, shape);
      double sum = 0;
      for (int64_t c = at[1] - (size - 1) / 2; c <= at[1] + size / 2; ++c) {
        if (c < 0 || c >= shape[1]) continue;
        Shape other = at;
        other[1] = c;
        double v = x[static_cast<size_t>(ravel(other, shape))];
        sum += v * v;
      }
      expected.push_back(x[static_cast<size_t>(i)] / std::pow(bias + alpha / size * sum, beta));
    }
    std::vector<NDArray> out = run_op_outputs("LRN", {&input},
                                              {{"size", Attribute::of_int(size)},
                                               {"alpha", Attribute::of_float(alpha)},
                                               {"beta", Attribute::of_float(beta)},
                                               {"bias", Attribute::of_float(bias)}},
                                              13);
    expect_array(out[0], kF32, shape, expected, 1e-5, 1e-6);
  }
  EXPECT_THROW(run_op("LRN", {&input}, {}, 13), CompileError);  // size is required
}

TEST(LpNorm, L1AndL2AlongAnAxis) {
  Shape shape{3, 4};
  Values x = stored(kF32, random_values<double>({count(shape)}, 8));
  NDArray input = make_array(kF32, shape, x);
  for (int64_t p : {1, 2}) {
    for (int64_t axis : {0, -1}) {
      SCOPED_TRACE("p " + std::to_string(p) + " axis " + std::to_string(axis));
      size_t a = axis == 0 ? 0 : 1;
      Values expected;
      for (int64_t i = 0; i < count(shape); ++i) {
        Shape at = unravel(i, shape);
        double norm = 0;
        for (int64_t k = 0; k < shape[a]; ++k) {
          Shape other = at;
          other[a] = k;
          double v = x[static_cast<size_t>(ravel(other, shape))];
          norm += p == 1 ? std::fabs(v) : v * v;
        }
        expected.push_back(x[static_cast<size_t>(i)] / (p == 1 ? norm : std::sqrt(norm)));
      }
      std::vector<NDArray> out =
          run_op_outputs("LpNormalization", {&input},
                         {{"p", Attribute::of_int(p)}, {"axis", Attribute::of_int(axis)}}, 1);
      expect_array(out[0], kF32, shape, expected, 1e-5, 1e-6);
    }
  }
  EXPECT_THROW(run_op("LpNormalization", {&input}, {{"p", Attribute::of_int(3)}}, 1), CompileError);
}

}  // namespace
}  // namespace tessel::ops::testing

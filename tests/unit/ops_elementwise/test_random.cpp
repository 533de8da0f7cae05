// RandomUniform and RandomNormal (folded on the host) tested by distribution: moments and
// histograms over many draws; the same seed gives the same values, another seed other ones.
// Bernoulli, Multinomial and Dropout in training: tests/unit/passes/test_random_rules.cpp.
#include <cmath>

#include "unit/ops_test_util.h"

namespace tessel::ops::testing {
namespace {

using graph::Attribute;

constexpr int64_t kDraws = 1 << 16;

struct Moments {
  double mean = 0, variance = 0;
};

Moments moments(const NDArray& a) {
  Moments m;
  std::vector<double> v = elements(a);
  for (double x : v) m.mean += x;
  m.mean /= static_cast<double>(v.size());
  for (double x : v) m.variance += (x - m.mean) * (x - m.mean);
  m.variance /= static_cast<double>(v.size());
  return m;
}

NDArray uniform(double seed, double low = 0, double high = 1) {
  return run_op("RandomUniform", {},
                {{"shape", Attribute::of_ints({256, kDraws / 256})},
                 {"low", Attribute::of_float(low)},
                 {"high", Attribute::of_float(high)},
                 {"seed", Attribute::of_float(seed)}});
}

TEST(Random, UniformHasTheMomentsAndHistogramOfItsRange) {
  NDArray u = uniform(7, -2, 3);
  ASSERT_EQ(u.shape(), (Shape{256, kDraws / 256}));
  Moments m = moments(u);
  // Mean 0.5, variance 25/12; 4 standard errors of 65536 draws.
  EXPECT_NEAR(m.mean, 0.5, 4 * std::sqrt(25.0 / 12 / kDraws));
  EXPECT_NEAR(m.variance, 25.0 / 12, 0.05);
  std::vector<int64_t> bins(10);
  for (double x : elements(u)) {
    ASSERT_GE(x, -2);
    ASSERT_LT(x, 3);
    ++bins[static_cast<size_t>((x + 2) / 0.5)];
  }
  double chi2 = 0, expected = kDraws / 10.0;
  for (int64_t b : bins) chi2 += (b - expected) * (b - expected) / expected;
  EXPECT_LT(chi2, 27.9);  // chi-square, 9 degrees of freedom, p = 0.001
  // Neighbours are not correlated.
  std::vector<double> v = elements(u);
  double c = 0;
  for (size_t k = 0; k + 1 < v.size(); ++k) c += (v[k] - 0.5) * (v[k + 1] - 0.5);
  EXPECT_NEAR(c / static_cast<double>(v.size() - 1) / m.variance, 0, 0.02);
}

TEST(Random, ASeedGivesTheSameValuesAndAnotherSeedOthers) {
  EXPECT_EQ(elements(uniform(3)), elements(uniform(3)));
  std::vector<double> a = elements(uniform(3)), b = elements(uniform(4));
  int64_t equal = 0;
  for (size_t k = 0; k < a.size(); ++k) equal += a[k] == b[k];
  EXPECT_LT(equal, 100);  // 24 random bits: a few coincidences at most
}

TEST(Random, NormalHasTheMomentsOfItsMeanAndScale) {
  NDArray n = run_op("RandomNormal", {},
                     {{"shape", Attribute::of_ints({kDraws})},
                      {"mean", Attribute::of_float(1.5)},
                      {"scale", Attribute::of_float(2)},
                      {"seed", Attribute::of_float(11)}});
  Moments m = moments(n);
  EXPECT_NEAR(m.mean, 1.5, 4 * 2 / std::sqrt(kDraws));
  EXPECT_NEAR(m.variance, 4, 0.15);
  // The share within one standard deviation: 68.27 %.
  int64_t within = 0;
  for (double x : elements(n)) within += std::fabs(x - 1.5) < 2;
  EXPECT_NEAR(static_cast<double>(within) / kDraws, 0.6827, 0.01);
}

TEST(Random, LikeFormsTakeTheShapeAndTypeOfTheirInput) {
  NDArray x = make_array(kF64, {4, 5}, std::vector<double>(20, 0.0));
  NDArray u = run_op("RandomUniformLike", {&x}, {{"seed", Attribute::of_float(1)}});
  EXPECT_EQ(u.dtype(), kF64);
  EXPECT_EQ(u.shape(), (Shape{4, 5}));
  NDArray n = run_op("RandomNormalLike", {&x}, {{"dtype", Attribute::of_int(1)}});
  EXPECT_EQ(n.dtype(), kF32);
}

TEST(Random, OperatorsReadingValuesRunOnlyThroughTheCompiler) {
  // Their draws are constants that the compiler's rewrites give them (random_rules.cpp,
  // tested in tests/unit/passes/test_random_rules.cpp).
  NDArray p = make_array(kF32, {4}, {0, 0.25, 0.5, 1});
  expect_compile_error([&] { run_op("Bernoulli", {&p}, {}, 15); }, "has no kernel of its own");
  NDArray ratio = make_array(kF32, {}, {0.25}), on = make_array(kBool, {}, {1});
  expect_compile_error(
      [&] {
        run_op("Dropout", {&p, &ratio, &on}, {}, 13);
      },
      "in training mode its mask is drawn at compile time");
}

TEST(Random, BadAttributesAreRefused) {
  expect_compile_error(
      [] {
        run_op("RandomUniform", {}, {{"shape", Attribute::of_ints({2, -1})}});
      },
      "attribute 'shape' has the negative extent -1");
  expect_compile_error(
      [] {
        run_op("RandomNormal", {},
               {{"shape", Attribute::of_ints({2})}, {"dtype", Attribute::of_int(7)}});
      },
      "attribute 'dtype' is 7, expected a floating-point element type");
}

}  // namespace
}  // namespace tessel::ops::testing

// The random operators tested by distribution (their values cannot be compared with another
// generator's): moments and histograms of RandomUniform and RandomNormal over many draws,
// Bernoulli's rate per probability, Multinomial's class frequencies, Dropout's kept fraction
// and scale in training; the same
// seed gives the same values, another seed or another node other ones.
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

TEST(Random, BernoulliDrawsOnesAtTheirProbability) {
  std::vector<double> p(kDraws);
  for (int64_t k = 0; k < kDraws; ++k) p[static_cast<size_t>(k)] = (k % 4) / 4.0;  // 0, 1/4, 1/2, 3/4
  NDArray probabilities = make_array(kF32, {kDraws}, p);
  NDArray y = run_op("Bernoulli", {&probabilities}, {{"seed", Attribute::of_float(5)}}, 15);
  std::vector<double> ones(4), v = elements(y);
  for (int64_t k = 0; k < kDraws; ++k) {
    ASSERT_TRUE(v[static_cast<size_t>(k)] == 0 || v[static_cast<size_t>(k)] == 1);
    ones[static_cast<size_t>(k % 4)] += v[static_cast<size_t>(k)];
  }
  for (int r = 0; r < 4; ++r) {
    double rate = ones[static_cast<size_t>(r)] / (kDraws / 4.0), q = r / 4.0;
    EXPECT_NEAR(rate, q, 4 * std::sqrt(q * (1 - q) / (kDraws / 4.0)) + 1e-12) << "p = " << q;
  }
}

TEST(Random, TrainingDropoutKeepsOneMinusRatioScaled) {
  NDArray x = make_array(kF32, {kDraws}, std::vector<double>(kDraws, 2.0));
  NDArray ratio = make_array(kF32, {}, {0.25});
  NDArray training = make_array(kBool, {}, {1});
  std::vector<NDArray> out = run_op_outputs("Dropout", {&x, &ratio, &training},
                                            {{"seed", Attribute::of_int(9)}}, 13, 2);
  std::vector<double> y = elements(out[0]), mask = elements(out[1]);
  int64_t kept = 0;
  for (int64_t k = 0; k < kDraws; ++k) {
    double expected = mask[static_cast<size_t>(k)] ? 2.0 / 0.75 : 0.0;
    ASSERT_NEAR(y[static_cast<size_t>(k)], expected, 1e-6) << k;
    kept += mask[static_cast<size_t>(k)] != 0;
  }
  EXPECT_NEAR(static_cast<double>(kept) / kDraws, 0.75, 4 * std::sqrt(0.75 * 0.25 / kDraws));
  // Not training: the input itself, every element kept.
  NDArray off = make_array(kBool, {}, {0});
  std::vector<NDArray> inference = run_op_outputs("Dropout", {&x, &ratio, &off}, {}, 13, 2);
  EXPECT_EQ(elements(inference[0]), elements(x));
}

TEST(Random, MultinomialDrawsEachClassAtItsProbability) {
  // Row 0: probabilities 0.1, 0.2, 0.7 (as log-probabilities plus an offset); row 1: one
  // class certain.
  const std::vector<double> p{0.1, 0.2, 0.7};
  NDArray logits = make_array(kF32, {2, 3},
                              {std::log(p[0]) + 3, std::log(p[1]) + 3, std::log(p[2]) + 3, -50, 0, -50});
  const int64_t samples = 30000;
  NDArray y = run_op("Multinomial", {&logits},
                     {{"sample_size", Attribute::of_int(samples)}, {"seed", Attribute::of_float(2)}}, 7);
  ASSERT_EQ(y.dtype(), kI32);
  ASSERT_EQ(y.shape(), (Shape{2, samples}));
  std::vector<double> counts(3), v = elements(y);
  for (int64_t s = 0; s < samples; ++s) {
    double c = v[static_cast<size_t>(s)];
    ASSERT_TRUE(c == 0 || c == 1 || c == 2) << c;
    ++counts[static_cast<size_t>(c)];
    EXPECT_EQ(v[static_cast<size_t>(samples + s)], 1);
  }
  for (size_t c = 0; c < 3; ++c)
    EXPECT_NEAR(counts[c] / samples, p[c], 4 * std::sqrt(p[c] * (1 - p[c]) / samples)) << "class " << c;
}

TEST(Random, BadAttributesAreRefused) {
  expect_compile_error([] { run_op("RandomUniform", {}, {{"shape", Attribute::of_ints({2, -1})}}); },
                       "attribute 'shape' has the negative extent -1");
  expect_compile_error(
      [] {
        run_op("RandomNormal", {}, {{"shape", Attribute::of_ints({2})}, {"dtype", Attribute::of_int(7)}});
      },
      "attribute 'dtype' is 7, expected a floating-point element type");
}

}  // namespace
}  // namespace tessel::ops::testing

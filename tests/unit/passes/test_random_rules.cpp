// Dropout in training, Bernoulli and Multinomial given their draws at compile time
// (random_rules.cpp), run after the rewrite and tested by distribution: kept fraction and
// scale, rate of ones per probability, class frequencies; a seed gives the same draws at
// every compile, another seed other ones. (That the draws are NumPy's for the seed is shown
// against NumPy itself: tests/onnx-cases/random and the node suite's training Dropout cases.)
#include <cmath>

#include "passes_test_util.h"
#include "runtime/ndarray_element.h"

namespace tessel::passes::testing {
namespace {

constexpr int64_t kDraws = 1 << 16;
const ir::DataType kBool = ir::DataType::Bool();

std::vector<double> values_of(const runtime::NDArray& a) {
  std::vector<double> v(static_cast<size_t>(a.size()));
  for (int64_t k = 0; k < a.size(); ++k)
    v[static_cast<size_t>(k)] = runtime::element_as_double(a, k);
  return v;
}

/// The outputs of `g` (one input) rewritten and folded, then run on `input`.
std::vector<std::vector<double>> run_rewritten(const graph::Graph& g, runtime::NDArray input) {
  std::vector<runtime::NDArray> inputs;
  inputs.push_back(std::move(input));
  std::vector<std::vector<double>> outputs;
  for (const runtime::NDArray& out : run_graph(rewrite_and_fold(g), inputs))
    outputs.push_back(values_of(out));
  return outputs;
}

/// Dropout(x of kDraws twos, ratio 0.25, training) with seed `seed`: output and mask.
std::vector<std::vector<double>> training_dropout(int64_t seed) {
  TestGraph t;
  graph::Value* x = t.input("x", {kDraws});
  std::vector<graph::Value*> out = t.ops(
      "Dropout", {"y", "mask"}, {x, t.scalar("ratio", 0.25), t.constant("on", kBool, {}, {1})},
      {{"seed", Attribute::of_int(seed)}});
  t.output(out[0]);
  t.output(out[1]);
  EXPECT_EQ(graph::to_string(rewrite_and_fold(t.g)).find("Dropout"), std::string::npos)
      << "training Dropout left in the graph";
  return run_rewritten(t.g, array_of(kF32, {kDraws}, std::vector<double>(kDraws, 2.0)));
}

TEST(RandomRules, TrainingDropoutKeepsOneMinusRatioScaled) {
  std::vector<std::vector<double>> out = training_dropout(9);
  const std::vector<double>& y = out[0];
  const std::vector<double>& mask = out[1];
  int64_t kept = 0;
  for (size_t k = 0; k < y.size(); ++k) {
    ASSERT_TRUE(mask[k] == 0 || mask[k] == 1) << k;
    ASSERT_NEAR(y[k], mask[k] ? 2.0 / 0.75 : 0.0, 1e-6) << k;
    kept += mask[k] != 0;
  }
  EXPECT_NEAR(static_cast<double>(kept) / kDraws, 0.75, 4 * std::sqrt(0.75 * 0.25 / kDraws));
  // The same seed draws the same mask; another seed another one.
  EXPECT_EQ(training_dropout(9)[1], mask);
  std::vector<double> other = training_dropout(10)[1];
  int64_t equal = 0;
  for (size_t k = 0; k < mask.size(); ++k) equal += other[k] == mask[k];
  EXPECT_NEAR(static_cast<double>(equal) / kDraws, 0.75 * 0.75 + 0.25 * 0.25, 0.02);
}

TEST(RandomRules, DropoutBeforeOpset7TrainsUnlessIsTest) {
  TestGraph t;
  graph::Value* x = t.input("x", {kDraws});
  t.output(t.op("Dropout", "trained", {x}, {}, 6));
  t.output(t.op("Dropout", "tested", {x}, {{"is_test", Attribute::of_int(1)}}, 6));
  std::vector<double> ones(kDraws, 1.0);
  std::vector<std::vector<double>> out = run_rewritten(t.g, array_of(kF32, {kDraws}, ones));
  int64_t kept = 0;
  for (double y : out[0]) {
    ASSERT_TRUE(y == 0 || y == 2) << y;  // ratio 0.5 by default
    kept += y != 0;
  }
  EXPECT_NEAR(static_cast<double>(kept) / kDraws, 0.5, 4 * std::sqrt(0.25 / kDraws));
  EXPECT_EQ(out[1], ones);
}

TEST(RandomRules, BernoulliDrawsOnesAtTheirProbability) {
  std::vector<double> p(kDraws);
  for (int64_t k = 0; k < kDraws; ++k) p[static_cast<size_t>(k)] = (k % 5) / 4.0;  // 0, 1/4, ..., 1
  TestGraph t;
  graph::Value* probabilities = t.input("p", {kDraws});
  t.output(t.op("Bernoulli", "y", {probabilities}, {{"seed", Attribute::of_float(5)}}, 15));
  std::vector<double> y = run_rewritten(t.g, array_of(kF32, {kDraws}, p))[0];
  std::vector<double> ones(5);
  for (int64_t k = 0; k < kDraws; ++k) {
    ASSERT_TRUE(y[static_cast<size_t>(k)] == 0 || y[static_cast<size_t>(k)] == 1);
    ones[static_cast<size_t>(k % 5)] += y[static_cast<size_t>(k)];
  }
  for (int r = 0; r < 5; ++r) {
    double rate = ones[static_cast<size_t>(r)] / (kDraws / 5), q = r / 4.0;
    EXPECT_NEAR(rate, q, 4 * std::sqrt(q * (1 - q) / (kDraws / 5)) + 1e-12) << "p = " << q;
  }
}

TEST(RandomRules, MultinomialDrawsEachClassAtItsProbability) {
  // Row 0: probabilities 0.1, 0.2, 0.7 (as log-probabilities plus an offset); row 1: one
  // class certain.
  const std::vector<double> p{0.1, 0.2, 0.7};
  const int64_t samples = 30000;
  TestGraph t;
  graph::Value* logits = t.input("logits", {2, 3});
  t.output(t.op("Multinomial", "y", {logits},
                {{"sample_size", Attribute::of_int(samples)}, {"seed", Attribute::of_float(2)}},
                7));
  std::vector<double> v = run_rewritten(
      t.g, array_of(kF32, {2, 3},
                    {std::log(p[0]) + 3, std::log(p[1]) + 3, std::log(p[2]) + 3, -50, 0, -50}))[0];
  ASSERT_EQ(v.size(), static_cast<size_t>(2 * samples));
  std::vector<double> counts(3);
  for (int64_t s = 0; s < samples; ++s) {
    double c = v[static_cast<size_t>(s)];
    ASSERT_TRUE(c == 0 || c == 1 || c == 2) << c;
    ++counts[static_cast<size_t>(c)];
    EXPECT_EQ(v[static_cast<size_t>(samples + s)], 1);
  }
  for (size_t c = 0; c < 3; ++c)
    EXPECT_NEAR(counts[c] / samples, p[c], 4 * std::sqrt(p[c] * (1 - p[c]) / samples))
        << "class " << c;
}

}  // namespace
}  // namespace tessel::passes::testing

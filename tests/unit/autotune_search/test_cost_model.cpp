// CostModel: ranking quality on held-out points of a synthetic task, determinism, and the
// errors of misuse and of XGBoost itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "autotune/cost_model.h"
#include "search_test_util.h"
#include "support/error.h"

namespace tessel::autotune {
namespace {

using testing::expect_error;
using testing::synthetic_features;
using testing::synthetic_space;
using testing::SyntheticTask;

/// Ranks (0-based, ties averaged) of `values`.
std::vector<double> ranks(const std::vector<double>& values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> rank(values.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j < order.size() && values[order[j]] == values[order[i]]) ++j;
    for (size_t t = i; t < j; ++t) rank[order[t]] = (i + j - 1) / 2.0;
    i = j;
  }
  return rank;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> ra = ranks(a), rb = ranks(b);
  double mean = (static_cast<double>(a.size()) - 1) / 2;
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    cov += (ra[i] - mean) * (rb[i] - mean);
    va += (ra[i] - mean) * (ra[i] - mean);
    vb += (rb[i] - mean) * (rb[i] - mean);
  }
  return cov / std::sqrt(va * vb);
}

/// Random points of the synthetic task: features and relative throughputs.
struct Samples {
  std::vector<std::vector<float>> features;
  std::vector<float> labels;
};

Samples samples(size_t count, uint64_t seed) {
  SearchSpace space = synthetic_space();
  SyntheticTask task;
  std::mt19937_64 rng(seed);
  Samples result;
  for (size_t i = 0; i < count; ++i) {
    Point point = space.random_point(rng);
    result.features.push_back(synthetic_features(point));
    // Relative to cost 1 (about the optimum) rather than to the best sample: the order is
    // the same.
    result.labels.push_back(static_cast<float>(1.0 / task.cost(point)));
  }
  return result;
}

/// The Spearman correlation between the scores of a model fit on `train` points and the
/// throughputs of `test` held-out points.
double held_out_correlation(const CostModelOptions& options, size_t train, size_t test) {
  Samples fit = samples(train, 1);
  Samples held_out = samples(test, 2);
  CostModel model(options);
  model.fit(fit.features, fit.labels, {static_cast<unsigned>(train)});
  std::vector<float> scores = model.predict(held_out.features);
  return spearman(std::vector<double>(scores.begin(), scores.end()),
                  std::vector<double>(held_out.labels.begin(), held_out.labels.end()));
}

TEST(CostModel, RanksHeldOutPoints) {
  // Measured: 0.955 from 64 samples, 0.960 from 128, 0.978 from 512 (squared error: 0.935,
  // 0.960, 0.980); a model that learnt nothing scores about 0.
  EXPECT_GT(held_out_correlation({}, 64, 400), 0.9);
  EXPECT_GT(held_out_correlation({}, 512, 400), 0.95);
  EXPECT_GT(held_out_correlation({.objective = "reg:squarederror"}, 128, 400), 0.9);
}

TEST(CostModel, LearnsTheOrderWithinEachGroup) {
  // Two tasks whose throughputs differ tenfold: ranking within groups still orders each
  // (measured: 0.963).
  Samples fast = samples(128, 3);
  Samples slow = samples(128, 4);
  Samples all = fast;
  for (size_t i = 0; i < slow.labels.size(); ++i) {
    all.features.push_back(slow.features[i]);
    all.labels.push_back(slow.labels[i] / 10);
  }
  CostModel model;
  model.fit(all.features, all.labels, {128, 128});
  Samples held_out = samples(400, 5);
  std::vector<float> scores = model.predict(held_out.features);
  EXPECT_GT(spearman(std::vector<double>(scores.begin(), scores.end()),
                     std::vector<double>(held_out.labels.begin(), held_out.labels.end())),
            0.9);
}

TEST(CostModel, IsDeterministicForASeed) {
  Samples fit = samples(96, 6);
  Samples held_out = samples(50, 7);
  CostModel a({.seed = 11}), b({.seed = 11});
  a.fit(fit.features, fit.labels, {96});
  b.fit(fit.features, fit.labels, {96});
  EXPECT_EQ(a.predict(held_out.features), b.predict(held_out.features));
}

TEST(CostModel, RefitReplacesTheModel) {
  CostModel model;
  EXPECT_FALSE(model.trained());
  Samples fit = samples(64, 8);
  model.fit(fit.features, fit.labels, {64});
  EXPECT_TRUE(model.trained());
  std::vector<float> before = model.predict(fit.features);
  // Reversed labels must reverse the order the model learnt.
  std::vector<float> reversed;
  for (float label : fit.labels) reversed.push_back(-label);
  model.fit(fit.features, reversed, {64});
  std::vector<float> after = model.predict(fit.features);
  EXPECT_LT(spearman(std::vector<double>(before.begin(), before.end()),
                     std::vector<double>(after.begin(), after.end())),
            -0.7);
  EXPECT_TRUE(model.predict({}).empty());
}

TEST(CostModel, SavedModelLoadsBackAndPredictsTheSame) {
  Samples fit = samples(64, 12);
  Samples held_out = samples(50, 13);
  CostModel model;
  model.fit(fit.features, fit.labels, {64});
  std::string json = model.save();
  EXPECT_EQ(json.front(), '{');
  CostModel loaded = CostModel::load(json, "'saved.json'");
  EXPECT_TRUE(loaded.trained());
  EXPECT_EQ(loaded.num_features(), fit.features.front().size());
  EXPECT_EQ(loaded.predict(held_out.features), model.predict(held_out.features));
}

TEST(CostModel, LoadingWhatIsNotAModelNamesItsOrigin) {
  expect_error<CompileError>([] { CostModel::load("not json", "'broken.json'"); },
                             "cost model 'broken.json' cannot be read as an XGBoost model");
  expect_error<CompileError>([] { CostModel::load("{}", "'empty.json'"); },
                             "cost model 'empty.json'");
}

TEST(CostModel, MisuseIsAnInternalError) {
  CostModel model;
  expect_error<InternalError>([&] { model.predict({{1, 2}}); }, "predict before fit");
  expect_error<InternalError>([&] { model.fit({}, {}, {}); }, "no samples");
  expect_error<InternalError>(
      [&] {
        model.fit({{1, 2}, {3}}, {0, 1}, {2});
      },
      "a feature row has 1 features, expected 2");
  expect_error<InternalError>(
      [&] {
        model.fit({{1, 2}, {3, 4}}, {0}, {2});
      },
      "1 labels for 2 samples");
  expect_error<InternalError>(
      [&] {
        model.fit({{1, 2}, {3, 4}}, {0, 1}, {1});
      },
      "groups of 1 samples for 2 samples");
  EXPECT_FALSE(model.trained());
  model.fit({{1, 2}, {3, 4}, {5, 6}}, {0, 0.5f, 1}, {3});
  expect_error<InternalError>(
      [&] {
        model.predict({{1, 2, 3}});
      },
      "a feature row has 3 features, expected 2");
}

TEST(CostModel, XgboostErrorsCarryItsMessage) {
  CostModel model({.objective = "rank:nonsense"});
  expect_error<InternalError>(
      [&] {
        model.fit({{1, 2}, {3, 4}}, {0, 1}, {2});
      },
      "Unknown objective function: `rank:nonsense`");
  // A failed fit keeps no half-built model.
  EXPECT_FALSE(model.trained());
}

}  // namespace
}  // namespace tessel::autotune

// Helpers for the search tests: synthetic tuning tasks (a space of five knobs with twelve
// values each and a cost made of per-knob bowls, an interaction between two knobs, a rugged
// factor and a region of failing points, with features derived from the knob values), and
// a check of the error a call raises.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "autotune/search_space.h"
#include "autotune/tuner.h"

namespace tessel::autotune::testing {

inline SearchSpace synthetic_space(int knobs = 5, int values = 12) {
  SearchSpace space;
  for (int k = 0; k < knobs; ++k) {
    std::vector<int64_t> choices;
    for (int v = 0; v < values; ++v) choices.push_back(v + 1);
    space.add("k" + std::to_string(k), choices);
  }
  return space;
}

/// A cost over synthetic_space(): the optimum (cost 1) sits at `centre`.
struct SyntheticTask {
  std::vector<int> centre = {3, 8, 5, 9, 2};
  std::vector<double> weights = {4, 3, 2.5, 2, 1.5};
  double interaction = 3;

  double cost(const Point& point) const {
    // Points whose first and last knobs are both large fail, like tiles that overflow.
    if (point[0] + point[4] > 18) return std::numeric_limits<double>::infinity();
    double cost = 1;
    for (size_t k = 0; k < point.size(); ++k) {
      double d = (point[k] - centre[k]) / 12.0;
      cost += weights[k] * d * d;
    }
    double skew = ((point[0] - centre[0]) - (point[1] - centre[1])) / 12.0;
    cost += interaction * skew * skew;
    // A rugged factor that no smooth model captures exactly.
    int ripple = (point[2] * 7 + point[3] * 3) % 5;
    return cost * (1 + 0.04 * ripple);
  }

  /// The best cost of the task (at `centre` the ripple may be non-zero).
  double optimum(const SearchSpace& space) const {
    double best = std::numeric_limits<double>::infinity();
    for (uint64_t i = 0; i < space.size(); ++i) best = std::min(best, cost(space.point_at(i)));
    return best;
  }
};

/// The task a transfer test learns from: the same kind of cost, optimum nearby.
inline SyntheticTask similar_task() {
  SyntheticTask task;
  task.centre = {4, 7, 5, 8, 3};
  task.weights = {3.5, 3.5, 2, 2.5, 1.5};
  return task;
}

/// The knob values and a few transforms of them.
inline std::vector<float> synthetic_features(const Point& point) {
  std::vector<float> features;
  for (int index : point) {
    float value = static_cast<float>(index + 1);
    features.push_back(value);
    features.push_back(std::log2(value));
  }
  features.push_back(static_cast<float>((point[0] + 1) * (point[4] + 1)));
  features.push_back(static_cast<float>(point[0] - point[1]));
  return features;
}

/// Measures `points` on `task`.
inline std::vector<Measurement> measure(const SyntheticTask& task,
                                        const std::vector<Point>& points) {
  std::vector<Measurement> results;
  for (const Point& point : points) results.push_back({point, task.cost(point)});
  return results;
}

/// The best cost a tuner of `kind` finds in `trials` measurements taken `batch` at a time.
inline double tune(const std::string& kind, const SyntheticTask& task, uint64_t seed, size_t trials,
                   size_t batch, std::vector<TransferSample> transfer = {},
                   std::shared_ptr<const CostModel> prior = nullptr) {
  SearchSpace space = synthetic_space();
  TunerOptions options;
  options.seed = seed;
  options.features = synthetic_features;
  options.transfer = std::move(transfer);
  options.prior = std::move(prior);
  auto tuner = make_tuner(kind, space, options);
  double best = std::numeric_limits<double>::infinity();
  for (size_t done = 0; done < trials;) {
    std::vector<Measurement> results =
        measure(task, tuner->next_batch(std::min(batch, trials - done)));
    if (results.empty()) break;
    for (const Measurement& result : results) best = std::min(best, result.cost);
    done += results.size();
    tuner->update(results);
  }
  return best;
}

/// `samples` random points of `task` as transfer samples (relative to their best cost).
inline std::vector<TransferSample> transfer_samples(const SyntheticTask& task, size_t samples,
                                                    uint64_t seed) {
  SearchSpace space = synthetic_space();
  std::mt19937_64 rng(seed);
  std::vector<Measurement> results;
  for (size_t i = 0; i < samples; ++i) {
    Point point = space.random_point(rng);
    results.push_back({point, task.cost(point)});
  }
  double best = std::numeric_limits<double>::infinity();
  for (const Measurement& result : results) best = std::min(best, result.cost);
  std::vector<TransferSample> transfer;
  for (const Measurement& result : results)
    transfer.push_back(
        {synthetic_features(result.point), std::isfinite(result.cost) ? best / result.cost : 0.0});
  return transfer;
}

/// Expects `fn` to throw E with a message containing `text`.
template <class E, class Fn>
void expect_error(Fn&& fn, const std::string& text) {
  try {
    fn();
    FAIL() << "expected an error containing '" << text << "'";
  } catch (const E& error) {
    EXPECT_NE(std::string(error.what()).find(text), std::string::npos) << error.what();
  }
}

inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace tessel::autotune::testing

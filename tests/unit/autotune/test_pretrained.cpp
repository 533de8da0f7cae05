// The pre-trained cost model: samples drawn from records, training and ranking quality on
// synthetic records whose cost follows one loop feature, and the model compiled into tessel.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "autotune/features.h"
#include "autotune/pretrained.h"
#include "autotune_test_util.h"
#include "support/error.h"

namespace tessel::autotune {
namespace {

/// `count` records of task `key`: loop features of random values, then knob values of
/// another length per task; the cost falls as feature 0 rises (scaled per task, so only the
/// order within a task carries over). The last record failed.
std::vector<Record> task_records(const std::string& key, size_t count, double scale, size_t knobs,
                                 uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(0.0f, 8.0f);
  std::vector<Record> records;
  for (size_t i = 0; i < count; ++i) {
    Record r;
    r.task_key = key;
    r.target = "llvm -lanes=16";
    for (size_t f = 0; f < kLoopFeatures + knobs; ++f) r.features.push_back(value(rng));
    r.costs = {scale / (1.0 + r.features[0])};
    if (i + 1 == count) {
      r.costs.clear();
      r.error = "crashed";
    }
    records.push_back(r);
  }
  return records;
}

std::vector<Record> corpus() {
  std::vector<Record> records;
  for (int t = 0; t < 3; ++t) {
    std::vector<Record> task = task_records("t" + std::to_string(t), 40, std::pow(10.0, t),
                                            static_cast<size_t>(t + 2), 10 + t);
    records.insert(records.end(), task.begin(), task.end());
  }
  // Too few records to rank: left out.
  std::vector<Record> small = task_records("small", kMinPriorRecords - 1, 1.0, 2, 20);
  records.insert(records.end(), small.begin(), small.end());
  return records;
}

TEST(Pretrained, SamplesAreLoopFeaturesGroupedByTask) {
  PriorSamples samples = prior_samples(corpus());
  EXPECT_EQ(samples.groups, (std::vector<unsigned>{40, 40, 40}));
  ASSERT_EQ(samples.rows.size(), 120u);
  for (const std::vector<float>& row : samples.rows) EXPECT_EQ(row.size(), kLoopFeatures);
  // Labels: the task's best cost over the record's; the failed record 0.
  float best = *std::max_element(samples.labels.begin(), samples.labels.begin() + 40);
  EXPECT_FLOAT_EQ(best, 1.0f);
  EXPECT_EQ(samples.labels[39], 0.0f);
}

TEST(Pretrained, RanksTheCandidatesOfATaskItHasNotSeen) {
  CostModel model = train_prior(corpus());
  EXPECT_EQ(model.num_features(), kLoopFeatures);
  // Measured: first choice 0.94, first 8 0.85, random 0.52.
  PriorQuality quality = evaluate_prior(model, task_records("new", 60, 5.0, 3, 99));
  EXPECT_EQ(quality.tasks, 1u);
  EXPECT_GT(quality.top1, 0.85);
  EXPECT_GT(quality.top8, quality.random + 0.2);
}

TEST(Pretrained, RecordsWithoutEnoughCandidatesTrainNothing) {
  std::vector<Record> records = task_records("small", kMinPriorRecords - 1, 1.0, 2, 1);
  try {
    train_prior(records);
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("no task with 8 measured candidates"), std::string::npos)
        << e.what();
  }
}

TEST(Pretrained, TheShippedModelScoresLoopFeatures) {
  std::shared_ptr<const CostModel> shipped = shipped_prior();
  ASSERT_TRUE(shipped) << "src/autotune/pretrained/cost_model.json is missing";
  EXPECT_EQ(shipped->num_features(), kLoopFeatures);
  // The candidates of a real task get finite scores, not all equal.
  TaskSet set = testing::tasks_of(testing::two_matmuls().graph);
  const Task& task = testing::task_of_template(set, "matmul");
  std::mt19937_64 rng(3);
  std::vector<std::vector<float>> rows;
  for (int i = 0; i < 16; ++i) {
    std::vector<float> f = candidate_features(task, task.space.random_point(rng));
    rows.emplace_back(f.begin(), f.begin() + kLoopFeatures);
  }
  std::vector<float> scores = shipped->predict(rows);
  for (float s : scores) EXPECT_TRUE(std::isfinite(s));
  EXPECT_NE(*std::min_element(scores.begin(), scores.end()),
            *std::max_element(scores.begin(), scores.end()));
}

}  // namespace
}  // namespace tessel::autotune

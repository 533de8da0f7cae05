// The pre-trained cost model: an XGBoost ranking of candidates by their loop-IR features
// alone (features.h; the knob values left out, so that the candidates of any template or
// generated space can be scored), trained on the tuning records of a corpus of models
// (scripts/train-cost-model.sh) and compiled into tessel. The "xgb" tuner ranks a task's
// first candidates with it, before the task's own measurements can train a model of their
// own, so a model never seen before starts warm.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "autotune/cost_model.h"
#include "autotune/records.h"

namespace tessel::autotune {

/// Training rows of the pre-trained model: the loop features of every record with features,
/// grouped by task and target (tasks of fewer than kMinPriorRecords such records left out),
/// labelled with the group's best mean cost over the record's (failed: 0).
struct PriorSamples {
  std::vector<std::vector<float>> rows;
  std::vector<float> labels;
  std::vector<unsigned> groups;  ///< consecutive rows per task
};
inline constexpr size_t kMinPriorRecords = 8;
PriorSamples prior_samples(const std::vector<Record>& records);

/// A ranking model of loop features trained on `records`. CompileError when they hold no
/// task of kMinPriorRecords records with features.
CostModel train_prior(const std::vector<Record>& records);

/// How well a model ranks the measured candidates of each task in `records` (the tasks of
/// prior_samples): the mean relative throughput (best cost / cost, failed 0) of its first
/// choice and of its first 8, against the mean of all candidates (a random choice's
/// expectation) and the best possible (1).
struct PriorQuality {
  size_t tasks = 0;
  double top1 = 0, top8 = 0, random = 0;
};
PriorQuality evaluate_prior(const CostModel& model, const std::vector<Record>& records);

/// The model compiled into tessel (src/autotune/pretrained/cost_model.json); nullptr when
/// the build has none.
std::shared_ptr<const CostModel> shipped_prior();

}  // namespace tessel::autotune

// CostModel: a gradient-boosted tree model (XGBoost) that ranks the points of a search space
// by their predicted throughput, so the "xgb" tuner measures the promising ones first.
//
// The model learns from feature vectors labelled with relative throughputs in [0, 1] (the
// best cost of the sample's task / the sample's cost; a failed measurement is 0), grouped by
// task: with a ranking objective only the order within a group is learnt, so tasks of very
// different speeds can share a model. Predictions are scores: higher means faster, and only
// their order is meaningful. A trained model saves to XGBoost's JSON format and loads back
// (the pre-trained model shipped with the tuner, pretrained_model.h). XGBoost stays behind
// this header.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessel::autotune {

struct CostModelOptions {
  /// XGBoost's objective: "rank:pairwise" learns orders within groups,
  /// "reg:squarederror" the labels themselves.
  std::string objective = "rank:pairwise";
  /// Boosting rounds (trees) per fit.
  int rounds = 100;
  int max_depth = 6;
  double eta = 0.3;
  /// The fraction of samples each tree sees.
  double subsample = 0.8;
  /// Threads for training and prediction; the tuner measures on the other cores.
  int nthread = 1;
  uint64_t seed = 0;
};

class CostModel {
 public:
  explicit CostModel(CostModelOptions options = {});
  ~CostModel();
  CostModel(CostModel&&) noexcept;
  CostModel& operator=(CostModel&&) noexcept;

  /// Trains a new model (forgetting the previous one) on `features` (one row per sample,
  /// all of one length) labelled with `labels`; `group_sizes` splits the rows, in order,
  /// into groups (consecutive rows of one task) that sum to the number of rows.
  /// InternalError for mismatched sizes, no samples, or an error reported by XGBoost.
  void fit(const std::vector<std::vector<float>>& features, const std::vector<float>& labels,
           const std::vector<unsigned>& group_sizes);
  /// One score per row of `features` (rows as long as the training rows); higher is faster.
  /// InternalError before the first fit or for rows of another length.
  std::vector<float> predict(const std::vector<std::vector<float>>& features) const;
  /// Whether fit() has succeeded at least once (or the model was loaded).
  bool trained() const;
  /// The trained model in XGBoost's JSON format. InternalError before the first fit.
  std::string save() const;
  /// A model saved by save(). CompileError naming `origin` (a file, or what the text is)
  /// when XGBoost cannot read `json` as a model of at least one feature.
  static CostModel load(const std::string& json, const std::string& origin,
                        CostModelOptions options = {});
  /// The number of features per row the model takes (0 before it is trained).
  size_t num_features() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessel::autotune

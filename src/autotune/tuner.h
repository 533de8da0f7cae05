// Tuners: strategies that choose which points of a search space to measure next.
//
// A tuner proposes batches of points it has not proposed before and learns from the
// measured costs it is given (lower is better; a failed measurement has cost +infinity).
// Kinds: "random", "grid" (mixed-radix order), "ga" (genetic algorithm) and "xgb"
// (a gradient-boosted cost model ranks candidates found by simulated annealing over it).
// Tuners are deterministic for a given seed and sequence of updates.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "autotune/search_space.h"

namespace tessel::autotune {

class CostModel;  // cost_model.h

/// Features describing a point to the cost model (fixed length per space), e.g. counts
/// taken from the point's lowered loop IR.
using FeatureFn = std::function<std::vector<float>(const Point&)>;

/// One measured point.
struct Measurement {
  Point point;
  /// Seconds per run; +infinity when building, running or checking failed.
  double cost = 0;
};

/// A measured point of another task (for transfer learning): its features and its cost
/// relative to the best cost measured on that task (1 = that task's best; failed: 0).
struct TransferSample {
  std::vector<float> features;
  double relative_throughput = 0;
};

struct TunerOptions {
  uint64_t seed = 0;
  /// Needed by "xgb": the features of a point (called for candidates before measuring).
  FeatureFn features;
  /// "xgb": samples of similar tasks that train the model before this task has data.
  std::vector<TransferSample> transfer;
  /// "xgb": a model that ranks candidates until the tuner can train its own (no transfer
  /// samples, fewer measurements than it needs), on the first prior->num_features() of each
  /// candidate's features (the pre-trained model, pretrained.h).
  std::shared_ptr<const CostModel> prior;
};

class Tuner {
 public:
  virtual ~Tuner() = default;
  /// Up to `count` points never proposed or updated before; fewer (possibly none) once the
  /// space is exhausted.
  virtual std::vector<Point> next_batch(size_t count) = 0;
  /// Results of measurements (of proposed points, or earlier records when resuming: their
  /// points count as visited).
  virtual void update(const std::vector<Measurement>& results) = 0;
};

/// A tuner of `kind` ("random", "grid", "ga", "xgb") over `space`; CompileError naming the
/// kind when it is unknown, or "xgb" without a feature function.
std::unique_ptr<Tuner> make_tuner(const std::string& kind, const SearchSpace& space,
                                  const TunerOptions& options = {});

}  // namespace tessel::autotune

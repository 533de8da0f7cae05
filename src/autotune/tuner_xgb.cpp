// The "xgb" tuner: a cost model trained on the measurements so far picks the next batch.
//
// After new measurements the model is retrained (lazily, at the next batch) on every
// measured point of this task, labelled best cost / cost, plus the transfer samples of other
// tasks as a group of their own. Candidates come from simulated annealing over the model's
// scores: parallel chains start at the best measured points and at random points, each step
// moves one knob, and every unvisited point scored on the way competes for the batch. A
// fraction of each batch stays random so that a wrong model cannot trap the search.
// Until the model can be trained, a prior model (the pre-trained one) ranks the candidates
// by the features it knows, or, without one, batches are random.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_set>

#include "autotune/cost_model.h"
#include "autotune/tuner_base.h"
#include "support/error.h"

namespace tessel::autotune {
namespace {

// A model of fewer successes ranks little better than chance.
constexpr size_t kMinSamples = 8;
// The share of each batch drawn at random (epsilon-greedy).
constexpr double kExploration = 0.1;
constexpr size_t kChains = 32;
constexpr int kSteps = 300;
// Annealing stops once the best candidates have not changed for this many steps.
constexpr int kPatience = 60;
// Feature evaluations lower a candidate's loop IR; this bounds their cost per batch.
constexpr size_t kFeatureBudget = 2000;
// Beyond this many cached feature vectors, those of unmeasured points are dropped.
constexpr size_t kMaxCachedFeatures = 100000;
// The starting temperature, in units of the spread of the chains' first scores.
constexpr double kTemperature = 1.0;

/// The range of the finite `scores` (a small positive number when there is none), which
/// sets the scale of the annealing temperature: the model's scores have no unit.
double spread_of(const std::vector<float>& scores) {
  float low = std::numeric_limits<float>::infinity(), high = -low;
  for (float score : scores) {
    if (!std::isfinite(score)) continue;
    low = std::min(low, score);
    high = std::max(high, score);
  }
  return std::max(static_cast<double>(high) - static_cast<double>(low), 1e-6);
}

/// The `capacity` best-scoring distinct indices offered.
class TopIndices {
 public:
  explicit TopIndices(size_t capacity) : capacity_(capacity) {}

  /// Whether (index, score) entered the best ones.
  bool offer(uint64_t index, float score) {
    if (capacity_ == 0 || members_.contains(index)) return false;
    if (best_.size() == capacity_) {
      if (std::pair(score, index) <= *best_.begin()) return false;
      members_.erase(best_.begin()->second);
      best_.erase(best_.begin());
    }
    best_.emplace(score, index);
    members_.insert(index);
    return true;
  }

  /// The indices, best first.
  std::vector<uint64_t> best_first() const {
    std::vector<uint64_t> indices;
    for (auto it = best_.rbegin(); it != best_.rend(); ++it) indices.push_back(it->second);
    return indices;
  }

 private:
  size_t capacity_;
  std::set<std::pair<float, uint64_t>> best_;  // worst first: the one to replace
  std::unordered_set<uint64_t> members_;
};

class XgbTuner final : public TunerBase {
 public:
  XgbTuner(const SearchSpace& space, const TunerOptions& options)
      : TunerBase(space, options.seed),
        feature_fn_(options.features),
        transfer_(options.transfer),
        prior_(options.prior),
        model_(CostModelOptions{.seed = options.seed}) {}

  std::vector<Point> next_batch(size_t count) override {
    if (stale_) retrain();
    std::vector<Point> batch;
    if (ranking_model()) {
      size_t exploring =
          static_cast<size_t>(std::lround(static_cast<double>(count) * kExploration));
      for (uint64_t index : anneal(count - exploring)) {
        batch.push_back(space().point_at(index));
        visit(batch.back());
      }
    }
    std::vector<Point> random = random_points(count - batch.size());
    batch.insert(batch.end(), random.begin(), random.end());
    return batch;
  }

 private:
  void on_update() override { stale_ = true; }

  /// The features of the point at `index`, computed once; empty when the feature function
  /// rejects the point (a CompileError: its schedule cannot be built, so it cannot run).
  const std::vector<float>& features(uint64_t index) {
    auto found = feature_cache_.find(index);
    if (found != feature_cache_.end()) return found->second;
    ++evaluations_;
    std::vector<float> features;
    try {
      features = feature_fn_(space().point_at(index));
    } catch (const CompileError&) {
      features.clear();
    }
    return feature_cache_.emplace(index, std::move(features)).first->second;
  }

  void retrain();
  std::vector<uint64_t> anneal(size_t count);
  std::vector<Point> start_points();
  Point neighbour(Point point);
  std::vector<float> scores(const std::vector<Point>& points);

  /// The model that ranks candidates now: the tuner's own once trained, else the prior.
  const CostModel* ranking_model() const { return model_.trained() ? &model_ : prior_.get(); }

  FeatureFn feature_fn_;
  std::vector<TransferSample> transfer_;
  std::shared_ptr<const CostModel> prior_;
  CostModel model_;
  bool stale_ = true;  // measurements (or transfer samples) the model has not seen
  std::unordered_map<uint64_t, std::vector<float>> feature_cache_;
  size_t evaluations_ = 0;  // feature evaluations in the current batch
};

void XgbTuner::retrain() {
  stale_ = false;
  size_t successes = 0;
  double best = std::numeric_limits<double>::infinity();
  for (const auto& [index, cost] : measured()) {
    if (!std::isfinite(cost)) continue;
    ++successes;
    best = std::min(best, cost);
  }
  if (successes < kMinSamples && transfer_.empty()) return;

  std::vector<std::vector<float>> rows;
  std::vector<float> labels;
  for (const auto& [index, cost] : measured()) {
    const std::vector<float>& row = features(index);
    if (row.empty()) continue;
    rows.push_back(row);
    labels.push_back(std::isfinite(cost) ? static_cast<float>(best / cost) : 0.0f);
  }
  std::vector<unsigned> groups;
  if (!rows.empty()) groups.push_back(static_cast<unsigned>(rows.size()));
  for (const TransferSample& sample : transfer_) {
    rows.push_back(sample.features);
    labels.push_back(static_cast<float>(sample.relative_throughput));
  }
  if (!transfer_.empty()) groups.push_back(static_cast<unsigned>(transfer_.size()));
  if (!rows.empty()) model_.fit(rows, labels, groups);
}

/// Up to `count` unvisited indices the model scores best, best first.
std::vector<uint64_t> XgbTuner::anneal(size_t count) {
  evaluations_ = 0;
  if (feature_cache_.size() > kMaxCachedFeatures)
    std::erase_if(feature_cache_,
                  [&](const auto& entry) { return !measured().contains(entry.first); });

  TopIndices top(count);
  auto offer = [&](const Point& point, float score) {
    uint64_t index = space().index_of(point);
    return std::isfinite(score) && !visited().contains(index) && top.offer(index, score);
  };
  std::vector<Point> chains = start_points();
  std::vector<float> chain_scores = scores(chains);
  for (size_t i = 0; i < chains.size(); ++i) offer(chains[i], chain_scores[i]);
  double spread = spread_of(chain_scores);

  for (int step = 0, unchanged = 0; step < kSteps && unchanged < kPatience; ++step) {
    std::vector<Point> moved;
    size_t uncached = 0;
    for (const Point& point : chains) {
      moved.push_back(neighbour(point));
      uncached += !feature_cache_.contains(space().index_of(moved.back()));
    }
    if (evaluations_ + uncached > kFeatureBudget) break;
    std::vector<float> moved_scores = scores(moved);
    double temperature = kTemperature * spread * (1.0 - static_cast<double>(step) / kSteps);
    bool changed = false;
    for (size_t i = 0; i < chains.size(); ++i) {
      changed |= offer(moved[i], moved_scores[i]);
      double gain = moved_scores[i] - chain_scores[i];
      // Metropolis: always take a better point, a worse one less often as the chain cools;
      // a chain on a rejected point walks on freely.
      if (gain >= 0 || std::isinf(chain_scores[i]) ||
          uniform_unit(rng()) < std::exp(gain / temperature)) {
        chains[i] = std::move(moved[i]);
        chain_scores[i] = moved_scores[i];
      }
    }
    unchanged = changed ? 0 : unchanged + 1;
  }
  return top.best_first();
}

/// Chains start at the best measured points (half of them at most) and at random points.
std::vector<Point> XgbTuner::start_points() {
  std::vector<Point> points;
  for (const auto& [index, cost] : best_measured(kChains / 2))
    if (std::isfinite(cost)) points.push_back(space().point_at(index));
  while (points.size() < kChains) points.push_back(space().random_point(rng()));
  return points;
}

/// `point` with one knob moved to an adjacent value or, half the time, to any other value.
Point XgbTuner::neighbour(Point point) {
  if (point.empty()) return point;
  size_t k = uniform_index(rng(), point.size());
  uint64_t n = space().knobs()[k].values.size();
  if (n < 2) return point;
  uint64_t value = static_cast<uint64_t>(point[k]);
  if (rng()() & 1) {
    bool up = value == 0 || (value + 1 < n && (rng()() & 1));
    value = up ? value + 1 : value - 1;
  } else {
    value = (value + 1 + uniform_index(rng(), n - 1)) % n;
  }
  point[k] = static_cast<int>(value);
  return point;
}

/// The ranking model's score of each point; -infinity for points the feature function
/// rejects.
std::vector<float> XgbTuner::scores(const std::vector<Point>& points) {
  const CostModel& model = *ranking_model();
  bool prior = &model != &model_;
  std::vector<std::vector<float>> rows;
  std::vector<size_t> rows_of;
  for (size_t i = 0; i < points.size(); ++i) {
    const std::vector<float>& row = features(space().index_of(points[i]));
    if (row.empty()) continue;
    if (prior) {
      // The prior knows the leading features only.
      size_t width = model.num_features();
      TESSEL_ICHECK(row.size() >= width, "xgb tuner: ", row.size(),
                    " features per candidate, the prior model takes ", width);
      rows.emplace_back(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(width));
    } else {
      rows.push_back(row);
    }
    rows_of.push_back(i);
  }
  std::vector<float> predicted = model.predict(rows);
  std::vector<float> scores(points.size(), -std::numeric_limits<float>::infinity());
  for (size_t r = 0; r < rows.size(); ++r) scores[rows_of[r]] = predicted[r];
  return scores;
}

}  // namespace

std::unique_ptr<Tuner> make_xgb_tuner(const SearchSpace& space, const TunerOptions& options) {
  return std::make_unique<XgbTuner>(space, options);
}

}  // namespace tessel::autotune

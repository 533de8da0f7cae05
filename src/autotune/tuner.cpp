// Tuners: the shared visited-set and measurement bookkeeping, the "random" and "grid"
// tuners, and make_tuner. The "ga" and "xgb" tuners live in tuner_ga.cpp and tuner_xgb.cpp.
#include <algorithm>
#include <cmath>
#include <limits>

#include "autotune/tuner_base.h"
#include "support/error.h"

namespace tessel::autotune {

uint64_t VisitedSet::position_of(uint64_t index) const {
  auto found = position_of_.find(index);
  return found == position_of_.end() ? index : found->second;
}

uint64_t VisitedSet::index_at(uint64_t position) const {
  auto found = index_at_.find(position);
  return found == index_at_.end() ? position : found->second;
}

bool VisitedSet::insert(uint64_t index) {
  uint64_t position = position_of(index);
  if (position >= unvisited_) return false;
  // Swap the index with the last unvisited one, which keeps its place in the unvisited part.
  uint64_t last = --unvisited_;
  uint64_t moved = index_at(last);
  index_at_[position] = moved;
  position_of_[moved] = position;
  index_at_[last] = index;
  position_of_[index] = last;
  return true;
}

std::optional<uint64_t> VisitedSet::draw(std::mt19937_64& rng) {
  if (unvisited_ == 0) return std::nullopt;
  uint64_t index = index_at(uniform_index(rng, unvisited_));
  insert(index);
  return index;
}

TunerBase::TunerBase(const SearchSpace& space, uint64_t seed)
    : space_(space), rng_(seed), visited_(space.size()) {}

void TunerBase::update(const std::vector<Measurement>& results) {
  for (const Measurement& result : results) {
    uint64_t index = space_.index_of(result.point);
    visited_.insert(index);
    // A point measured twice (a resumed run re-measuring) keeps its best cost.
    double cost = std::isnan(result.cost) ? std::numeric_limits<double>::infinity() : result.cost;
    auto [it, inserted] = measured_.emplace(index, cost);
    if (!inserted) it->second = std::min(it->second, cost);
  }
  on_update();
}

std::vector<Point> TunerBase::random_points(size_t count) {
  std::vector<Point> points;
  while (points.size() < count) {
    std::optional<uint64_t> index = visited_.draw(rng_);
    if (!index) break;
    points.push_back(space_.point_at(*index));
  }
  return points;
}

std::vector<std::pair<uint64_t, double>> TunerBase::best_measured(size_t count) const {
  std::vector<std::pair<uint64_t, double>> best(measured_.begin(), measured_.end());
  auto cheaper = [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second < b.second : a.first < b.first;
  };
  count = std::min(count, best.size());
  std::partial_sort(best.begin(), best.begin() + static_cast<std::ptrdiff_t>(count), best.end(),
                    cheaper);
  best.resize(count);
  return best;
}

namespace {

/// Uniformly drawn points, each proposed once.
class RandomTuner final : public TunerBase {
 public:
  RandomTuner(const SearchSpace& space, uint64_t seed) : TunerBase(space, seed) {}
  std::vector<Point> next_batch(size_t count) override { return random_points(count); }
};

/// Points in mixed-radix order (the last knob varies fastest), skipping visited ones.
class GridTuner final : public TunerBase {
 public:
  GridTuner(const SearchSpace& space, uint64_t seed) : TunerBase(space, seed) {}

  std::vector<Point> next_batch(size_t count) override {
    std::vector<Point> batch;
    for (; batch.size() < count && next_ < space().size(); ++next_) {
      Point point = space().point_at(next_);
      if (visit(point)) batch.push_back(std::move(point));
    }
    return batch;
  }

 private:
  uint64_t next_ = 0;
};

}  // namespace

std::unique_ptr<Tuner> make_random_tuner(const SearchSpace& space, const TunerOptions& options) {
  return std::make_unique<RandomTuner>(space, options.seed);
}

std::unique_ptr<Tuner> make_grid_tuner(const SearchSpace& space, const TunerOptions& options) {
  return std::make_unique<GridTuner>(space, options.seed);
}

std::unique_ptr<Tuner> make_tuner(const std::string& kind, const SearchSpace& space,
                                  const TunerOptions& options) {
  if (kind == "random") return make_random_tuner(space, options);
  if (kind == "grid") return make_grid_tuner(space, options);
  if (kind == "ga") return make_ga_tuner(space, options);
  if (kind == "xgb") {
    if (!options.features) TESSEL_USER_ERROR("tuner 'xgb' needs a feature function");
    return make_xgb_tuner(space, options);
  }
  TESSEL_USER_ERROR("unknown tuner '", kind, "' (expected random, grid, ga or xgb)");
}

}  // namespace tessel::autotune

// The machinery shared by the tuners: the set of visited points (drawn from uniformly
// without replacement), the measured costs, and the constructors of each kind of tuner.
// Internal to the tuners; other code uses tuner.h.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <unordered_map>
#include <utility>
#include <vector>

#include "autotune/search_space.h"
#include "autotune/tuner.h"

namespace tessel::autotune {

/// An integer uniform in [0, n), n > 0, the same on every standard library.
inline uint64_t uniform_index(std::mt19937_64& rng, uint64_t n) {
  return rng() % n;
}
/// A double uniform in [0, 1), the same on every standard library.
inline double uniform_unit(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1p-53;
}

/// The visited indices of a space of `size` points, with uniform draws of unvisited ones.
///
/// The indices are kept as a permutation whose first `unvisited()` positions hold the
/// unvisited indices; visiting an index swaps it behind them. Only the positions that moved
/// are stored, so memory grows with the number of visits, not with the space, and a draw
/// costs O(1) however many points were visited.
class VisitedSet {
 public:
  explicit VisitedSet(uint64_t size) : unvisited_(size) {}

  bool contains(uint64_t index) const { return position_of(index) >= unvisited_; }
  /// Marks `index` visited; whether it was unvisited.
  bool insert(uint64_t index);
  /// The number of indices not visited yet.
  uint64_t unvisited() const { return unvisited_; }
  /// Visits and returns a uniformly drawn unvisited index; nullopt once all are visited.
  std::optional<uint64_t> draw(std::mt19937_64& rng);

 private:
  uint64_t position_of(uint64_t index) const;
  uint64_t index_at(uint64_t position) const;

  uint64_t unvisited_;
  std::unordered_map<uint64_t, uint64_t> index_at_;     // position -> index, where moved
  std::unordered_map<uint64_t, uint64_t> position_of_;  // index -> position, where moved
};

/// A tuner that records what every tuner must know: the visited points and the measured
/// costs. Points given to update() count as visited whether or not they were proposed.
class TunerBase : public Tuner {
 public:
  void update(const std::vector<Measurement>& results) final;

 protected:
  TunerBase(const SearchSpace& space, uint64_t seed);

  const SearchSpace& space() const { return space_; }
  std::mt19937_64& rng() { return rng_; }
  const VisitedSet& visited() const { return visited_; }
  /// Marks `point` visited; whether it was unvisited.
  bool visit(const Point& point) { return visited_.insert(space_.index_of(point)); }
  /// Up to `count` uniformly drawn unvisited points, now visited.
  std::vector<Point> random_points(size_t count);
  /// The best cost measured for each measured point, by index (+infinity: failed).
  const std::map<uint64_t, double>& measured() const { return measured_; }
  /// Up to `count` measured (index, cost) pairs, cheapest first, ties by index.
  std::vector<std::pair<uint64_t, double>> best_measured(size_t count) const;
  /// Called by update() once the results are recorded.
  virtual void on_update() {}

 private:
  SearchSpace space_;
  std::mt19937_64 rng_;
  VisitedSet visited_;
  std::map<uint64_t, double> measured_;
};

std::unique_ptr<Tuner> make_random_tuner(const SearchSpace& space, const TunerOptions& options);
std::unique_ptr<Tuner> make_grid_tuner(const SearchSpace& space, const TunerOptions& options);
std::unique_ptr<Tuner> make_ga_tuner(const SearchSpace& space, const TunerOptions& options);
std::unique_ptr<Tuner> make_xgb_tuner(const SearchSpace& space, const TunerOptions& options);

}  // namespace tessel::autotune

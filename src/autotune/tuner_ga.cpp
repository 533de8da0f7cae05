// The "ga" tuner: a genetic algorithm whose population is the best points measured so far.
//
// Because the population is rebuilt from every measurement each batch, the best points
// always survive into the next generation (elitism) and points measured when a run resumes
// join it like the tuner's own children. Children come from tournament selection, uniform
// crossover per knob and a per-knob mutation to another value.
#include <cmath>
#include <memory>
#include <vector>

#include "autotune/tuner_base.h"

namespace tessel::autotune {
namespace {

constexpr size_t kPopulation = 24;
constexpr size_t kTournament = 3;
constexpr double kMutationRate = 0.1;
// Breeding stops after this many visited children per requested point; the rest of the batch
// is random, which also keeps a converged population from stalling the search.
constexpr size_t kTriesPerPoint = 32;

class GaTuner final : public TunerBase {
 public:
  GaTuner(const SearchSpace& space, uint64_t seed) : TunerBase(space, seed) {}

  std::vector<Point> next_batch(size_t count) override {
    std::vector<Point> batch;
    if (measured().size() >= kPopulation) {
      std::vector<Point> population;
      std::vector<double> fitness;
      for (const auto& [index, cost] : best_measured(kPopulation)) {
        population.push_back(space().point_at(index));
        fitness.push_back(std::isfinite(cost) ? 1.0 / cost : 0.0);
      }
      for (size_t tries = 0; batch.size() < count && tries < count * kTriesPerPoint; ++tries) {
        size_t mother = select(fitness);
        size_t father = select(fitness);
        Point child = crossover(population[mother], population[father]);
        mutate(child);
        if (visit(child)) batch.push_back(std::move(child));
      }
    }
    std::vector<Point> random = random_points(count - batch.size());
    batch.insert(batch.end(), random.begin(), random.end());
    return batch;
  }

 private:
  /// The fittest of kTournament members drawn with replacement.
  size_t select(const std::vector<double>& fitness) {
    size_t best = uniform_index(rng(), fitness.size());
    for (size_t i = 1; i < kTournament; ++i) {
      size_t other = uniform_index(rng(), fitness.size());
      if (fitness[other] > fitness[best]) best = other;
    }
    return best;
  }

  Point crossover(const Point& a, const Point& b) {
    Point child(a.size());
    for (size_t k = 0; k < a.size(); ++k) child[k] = (rng()() & 1) ? a[k] : b[k];
    return child;
  }

  void mutate(Point& point) {
    const std::vector<Knob>& knobs = space().knobs();
    for (size_t k = 0; k < point.size(); ++k) {
      uint64_t n = knobs[k].values.size();
      if (n < 2 || uniform_unit(rng()) >= kMutationRate) continue;
      // Shift by 1..n-1 so that a mutation always changes the value.
      point[k] =
          static_cast<int>((static_cast<uint64_t>(point[k]) + 1 + uniform_index(rng(), n - 1)) % n);
    }
  }
};

}  // namespace

std::unique_ptr<Tuner> make_ga_tuner(const SearchSpace& space, const TunerOptions& options) {
  return std::make_unique<GaTuner>(space, options.seed);
}

}  // namespace tessel::autotune

// The library API of tuning: a model's kernels searched for the request's target and every
// measurement stored in a records database. The command line's `tessel tune` and the Python
// package call it; neither holds tuning logic of its own.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "api/compile.h"
#include "autotune/records.h"
#include "autotune/task.h"
#include "autotune/tune.h"

namespace tessel::api {

/// Models with more bytes of weights than this (a last-level cache's size) are tuned with
/// their weights evicted from the caches before each run (MeasureOptions::cold_constants).
inline constexpr int64_t kColdWeightBytes = int64_t{32} << 20;

struct TuneRequest {
  /// Input shapes and compile options (target, threads, passes) of the kernels tuned.
  CompileRequest compile;
  /// Searched one after the other, each with an equal share of the time budget left.
  std::vector<autotune::SearchKind> searches = {autotune::SearchKind::Templates};
  /// Whether each run finds the kernel's weights evicted from the caches: "cold", "warm",
  /// or "" for the model's size to decide (cold past kColdWeightBytes).
  std::string weights;
  /// Tuner, trials, time budget, measurement; its measure.threads and measure.target are
  /// taken from `compile`.
  autotune::TuneOptions options;
};

/// The tasks of the model at `path` as the request compiles it, for `search`.
autotune::TaskSet model_tasks(const std::string& path, const TuneRequest& request,
                              autotune::SearchKind search);

/// What one search of tune_model found.
struct SearchResult {
  autotune::SearchKind search = autotune::SearchKind::Templates;
  std::vector<autotune::TaskResult> tasks;
};

/// Called with each search's results (and its place in request.searches) as it ends.
using SearchDone = std::function<void(const SearchResult&, size_t index)>;

/// Tunes the model at `path` into `db`, one search after the other (request.searches), and
/// returns each search's results. `log`, when given, receives the line that opens each
/// search (tasks, weights, tuner, budget); the tuning loop's progress goes to
/// request.options.progress; `done`, when given, is called as each search ends.
std::vector<SearchResult> tune_model(const std::string& path, const TuneRequest& request,
                                     autotune::RecordDatabase& db, std::ostream* log = nullptr,
                                     const SearchDone& done = {});

}  // namespace tessel::api

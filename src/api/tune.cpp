// model_tasks and tune_model: the tuning flow behind the command line and the Python package.
#include "api/tune.h"

#include <algorithm>
#include <chrono>
#include <ostream>

namespace tessel::api {
namespace {

/// The model's graph after the graph passes, as the request compiles it.
std::shared_ptr<const graph::Graph> optimized_graph(const std::string& path,
                                                    const TuneRequest& request) {
  graph::Graph graph = import_model(path, request.compile.inputs);
  return compiler::optimize_graph(graph, input_types(graph, request.compile.inputs), {},
                                  request.compile.options);
}

int64_t weight_bytes(const autotune::TaskSet& tasks) {
  int64_t bytes = 0;
  for (const auto& value : tasks.graph->values())
    if (value->constant) bytes += value->constant->nbytes();
  return bytes;
}

}  // namespace

autotune::TaskSet model_tasks(const std::string& path, const TuneRequest& request,
                              autotune::SearchKind search) {
  return autotune::extract_tasks(optimized_graph(path, request), request.compile.options, search);
}

std::vector<SearchResult> tune_model(const std::string& path, const TuneRequest& request,
                                     autotune::RecordDatabase& db, std::ostream* log,
                                     const SearchDone& done) {
  std::shared_ptr<const graph::Graph> optimized = optimized_graph(path, request);
  autotune::TuneOptions options = request.options;
  options.measure.threads = request.compile.options.num_threads;
  options.measure.target = request.compile.options.build.target;
  auto start = std::chrono::steady_clock::now();
  const double budget = options.time_budget_seconds;
  const std::vector<autotune::SearchKind>& searches = request.searches;
  std::vector<SearchResult> results;
  for (size_t s = 0; s < searches.size(); ++s) {
    autotune::TaskSet tasks =
        autotune::extract_tasks(optimized, request.compile.options, searches[s]);
    // A model whose weights exceed the caches finds them in memory at every kernel.
    int64_t weights = weight_bytes(tasks);
    options.measure.cold_constants =
        request.weights.empty() ? weights > kColdWeightBytes : request.weights == "cold";
    if (budget > 0) {
      double spent =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      options.time_budget_seconds =
          std::max(1.0, (budget - spent) / static_cast<double>(searches.size() - s));
    }
    if (log) {
      size_t tunable = 0;
      for (const autotune::Task& t : tasks.tasks) tunable += t.tunable();
      *log << model_name(path) << ": " << tasks.tasks.size() << " tasks, " << tunable
           << (searches[s] == autotune::SearchKind::Auto ? " with a generated space"
                                                         : " with a template")
           << "; weights "
           << (options.measure.cold_constants ? "evicted before each run (" : "cached (")
           << weights / (1 << 20) << " MiB)"
           << "; tuner " << options.tuner
           << (options.tuner == "xgb" && options.prior ? " (from a pre-trained cost model)" : "")
           << ", " << options.trials << " trials per task, records in " << db.path();
      if (budget > 0) *log << ", " << static_cast<int>(options.time_budget_seconds) << " s";
      *log << "\n";
    }
    results.push_back({searches[s], autotune::tune_tasks(tasks, db, options)});
    if (done) done(results.back(), s);
  }
  return results;
}

}  // namespace tessel::api

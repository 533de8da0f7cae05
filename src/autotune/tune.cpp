// tune_tasks: the task scheduler, the rounds of propose / measure / record, progress.
#include "autotune/tune.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <functional>
#include <iomanip>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <thread>

#include "autotune/features.h"
#include "autotune/peak.h"
#include "autotune/tuner.h"
#include "support/error.h"
#include "support/json.h"

namespace tessel::autotune {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

double gflops(double flops, double seconds) {
  return seconds > 0 && std::isfinite(seconds) ? flops / seconds * 1e-9 : 0.0;
}

std::string clock_text(double seconds) {
  int s = static_cast<int>(seconds + 0.5);
  std::ostringstream text;
  text << s / 60 << ":" << std::setw(2) << std::setfill('0') << s % 60;
  return text.str();
}

/// What the loop knows of one task.
struct TaskState {
  const Task* task = nullptr;
  std::unique_ptr<Tuner> tuner;
  std::unique_ptr<Measurer> measurer;
  double best = kInfinity;
  /// The best cost after each of this run's rounds (the first entry: before them).
  std::vector<double> best_history;
  bool done = false;
  TaskResult result;
};

/// The average cost of the task's best point in the records (+infinity when none).
double best_average_cost(const Task& task, const RecordDatabase& db) {
  std::vector<RecordDatabase::RankedPoint> best = db.best_points(task.key, task.target, 1);
  return best.empty() ? kInfinity : best.front().average_cost;
}

/// Whether record `r` chose values for the knobs of `space`, in its order: only then do the
/// knob values in its features mean what this task's do (generated spaces of one rule may
/// differ in their knobs).
bool names_the_knobs_of(const Record& r, const SearchSpace& space) {
  if (r.point_json.empty()) return false;
  json::Value point = json::parse(r.point_json);
  if (!point.is_object() || point.as_object().size() != space.knobs().size()) return false;
  for (size_t k = 0; k < space.knobs().size(); ++k)
    if (point.as_object()[k].first != space.knobs()[k].name) return false;
  return true;
}

/// Starts a task: its tuner, fed with the records the database already holds.
void start_task(TaskState& state, const RecordDatabase& db, const TuneOptions& options) {
  const Task& task = *state.task;
  TunerOptions tuner_options;
  tuner_options.seed = options.seed;
  tuner_options.features = [&task](const Point& p) { return candidate_features(task, p); };
  if (options.tuner == "xgb" && options.transfer)
    tuner_options.transfer = transfer_samples(task, db);
  tuner_options.prior = options.prior;
  state.tuner = make_tuner(options.tuner, task.space, tuner_options);
  // Each point measured counts as one trial (a point measured again to confirm it, once).
  std::vector<Measurement> known;
  std::set<std::string> seen;
  for (const Record& r : db.records(task.key, task.target)) {
    if (r.point_json.empty()) continue;  // a measurement of the default schedule
    // Points of the task's other space (its template, or its generated space) are that
    // space's trials; they still set the best below.
    if (r.template_name != task.template_name) continue;
    if (!seen.insert(r.point_json).second) continue;
    ++state.result.trials;
    if (!r.ok()) ++state.result.failed;
    try {
      known.push_back({task.space.from_json(json::parse(r.point_json).as_object()), r.mean_cost()});
    } catch (const CompileError&) {
      // A record of another version of the template: it still counts as a trial.
    }
  }
  if (!known.empty()) state.tuner->update(known);
  state.best = best_average_cost(task, db);
  state.best_history.push_back(state.best);
  state.done = state.result.trials >= options.trials;
}

/// The expected gain in model latency from one more batch of `state`'s task.
double expected_gain(const TaskState& state) {
  const Task& task = *state.task;
  if (state.best_history.size() < 2 || !std::isfinite(state.best))
    return kInfinity;  // untried in this run: every task gets a first batch
  size_t n = state.best_history.size();
  double before = state.best_history[n >= 3 ? n - 3 : 0];
  double improvement = std::isfinite(before) ? (before - state.best) / before : 1.0;
  return task.weight * state.best * std::max(improvement, 0.02);
}

/// Measures the default schedule once per run (recorded with no point: the best record is
/// then never slower than the default as measured). False when the task cannot be measured.
bool start_measuring(TaskState& state, RecordDatabase& db, const TuneOptions& options) {
  const Task& task = *state.task;
  try {
    state.measurer = std::make_unique<Measurer>(task.kernel, options.measure);
  } catch (const std::exception& e) {
    if (options.progress)
      *options.progress << (options.live ? "\n" : "") << "[" << task.name
                        << "] skipped: its default schedule does not run: " << e.what() << "\n";
    return false;
  }
  MeasureResult baseline = state.measurer->measure_default();
  state.result.default_cost = baseline.mean_cost();
  state.best = std::min(state.best, state.result.default_cost);
  db.add(make_record(task, std::nullopt, task.kernel->schedule.get(), baseline));
  return true;
}

/// One round of a task: a batch proposed, measured, recorded and learnt from. Returns the
/// number of trials made (0: the space is exhausted).
int run_round(TaskState& state, RecordDatabase& db, const TuneOptions& options,
              const std::function<double()>& elapsed) {
  const Task& task = *state.task;
  size_t count = static_cast<size_t>(std::min(options.batch, options.trials - state.result.trials));
  std::vector<Point> points = state.tuner->next_batch(count);
  std::vector<std::shared_ptr<schedule::Schedule>> schedules;
  std::vector<size_t> scheduled;  // index into points
  std::vector<MeasureResult> results(points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    try {
      schedules.push_back(task.schedule_at(points[i]));
      scheduled.push_back(i);
    } catch (const CompileError& e) {
      results[i].error = std::string("schedule failed: ") + e.what();
    }
  }
  std::vector<MeasureResult> measured = state.measurer->measure(schedules);
  for (size_t j = 0; j < scheduled.size(); ++j) results[scheduled[j]] = measured[j];
  std::vector<Measurement> update;
  for (size_t i = 0, j = 0; i < points.size(); ++i) {
    const schedule::Schedule* schedule =
        j < scheduled.size() && scheduled[j] == i ? schedules[j++].get() : nullptr;
    db.add(make_record(task, points[i], schedule, results[i]));
    update.push_back({points[i], results[i].mean_cost()});
    ++state.result.trials;
    if (!results[i].ok()) ++state.result.failed;
    state.best = std::min(state.best, results[i].mean_cost());
    state.result.curve.push_back({state.result.trials, elapsed(), gflops(task.flops, state.best)});
  }
  if (!update.empty()) state.tuner->update(update);
  state.best_history.push_back(state.best);
  return static_cast<int>(points.size());
}

/// Measures the task's leading points again (TuneOptions::confirm) and records them; the
/// default schedule among them is measured as itself.
void confirm_best(TaskState& state, RecordDatabase& db, const TuneOptions& options) {
  const Task& task = *state.task;
  for (int pass = 0; pass < 5; ++pass) {
    std::vector<std::optional<Point>> points;
    std::vector<std::shared_ptr<schedule::Schedule>> schedules;
    for (const RecordDatabase::RankedPoint& ranked :
         db.best_points(task.key, task.target, static_cast<size_t>(options.confirm))) {
      if (ranked.measurements >= 2) continue;
      const std::string& point_json = ranked.latest.point_json;
      if (point_json.empty()) {
        points.push_back(std::nullopt);
        schedules.push_back(task.kernel->schedule);
        continue;
      }
      try {
        Point point = task.space.from_json(json::parse(point_json).as_object());
        schedules.push_back(task.schedule_at(point));
        points.push_back(point);
      } catch (const CompileError&) {
        // A point of another version of the template: it keeps its one measurement.
      }
    }
    if (schedules.empty()) break;
    std::vector<MeasureResult> results = state.measurer->measure(schedules);
    for (size_t i = 0; i < results.size(); ++i)
      db.add(make_record(task, points[i], schedules[i].get(), results[i]));
  }
  state.best = best_average_cost(task, db);
}

/// Times the task's best point against its default schedule (TuneOptions::settle_repeats)
/// and records the verdict: the point when it ran faster by the margin, else the default.
void settle(TaskState& state, RecordDatabase& db, const TuneOptions& options) {
  const Task& task = *state.task;
  std::vector<RecordDatabase::RankedPoint> best = db.best_points(task.key, task.target, 1);
  if (best.empty()) return;
  RecordDatabase::Verdict verdict;
  verdict.task_key = task.key;
  verdict.target = task.target;
  verdict.timestamp = static_cast<double>(std::time(nullptr));
  if (best.front().latest.point_json.empty()) {
    // The default leads: nothing to time, but a point an earlier run settled on no longer
    // stands.
    db.settle(verdict);
    state.result.kept_default = true;
    state.best = state.result.default_cost;
    return;
  }
  const std::string& point_json = best.front().latest.point_json;
  std::shared_ptr<schedule::Schedule> schedule;
  try {
    schedule = task.schedule_at(task.space.from_json(json::parse(point_json).as_object()));
  } catch (const CompileError&) {
    return;  // a point of another version of the template: best() finds its trace stale
  }
  double ratio = state.measurer->paired_ratio(schedule, options.settle_repeats);
  state.result.settled_ratio = std::isfinite(ratio) ? ratio : 0.0;
  state.result.kept_default = !(ratio <= options.settle_ratio);
  if (!state.result.kept_default) verdict.point_json = point_json;
  verdict.ratio = state.result.settled_ratio;
  db.settle(verdict);
  if (state.result.kept_default) state.best = state.result.default_cost;
  if (options.progress)
    *options.progress << "[" << task.name
                      << "] best point against the default, run by run: " << std::fixed
                      << std::setprecision(3) << ratio << "x the time: "
                      << (state.result.kept_default ? "the default schedule is kept"
                                                    : "the best point is kept")
                      << "\n";
}

void print_progress(const TaskState& state, const TuneOptions& options, double elapsed,
                    double eta) {
  const Task& task = *state.task;
  *options.progress << (options.live ? "\r" : "") << "[" << task.name << "] " << state.result.trials
                    << "/" << options.trials << " trials, best " << std::fixed
                    << std::setprecision(1) << gflops(task.flops, state.best)
                    << " GFLOP/s (default " << gflops(task.flops, state.result.default_cost)
                    << "), " << state.result.failed << " failed | elapsed " << clock_text(elapsed)
                    << ", ETA " << clock_text(eta) << "   " << (options.live ? "" : "\n")
                    << std::flush;
}

/// `options` with measure.peak set from the clock measured now (check_peak), the bound
/// announced on the progress stream.
TuneOptions with_peak(const TuneOptions& options) {
  TuneOptions run = options;
  if (!options.check_peak || options.measure.peak.flops_per_cycle > 0) return run;
  int threads = options.measure.threads > 0
                    ? options.measure.threads
                    : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  run.measure.peak = measure_peak(options.measure.target, threads);
  if (run.measure.peak.flops_per_cycle <= 0) return run;  // no clock measurement here
  if (options.progress)
    *options.progress << std::fixed << std::setprecision(1) << "peak "
                      << run.measure.peak.flops() * 1e-9 << " GFLOP/s: " << threads << " thread"
                      << (threads == 1 ? "" : "s") << " x "
                      << options.measure.target.peak_flops_per_cycle(32)
                      << " float operations per cycle at " << std::setprecision(2)
                      << run.measure.peak.clock_hz * 1e-9
                      << " GHz (a faster run has the clock measured again before it is called a "
                         "measurement fault)\n";
  return run;
}

}  // namespace

Record make_record(const Task& task, const std::optional<Point>& point,
                   const schedule::Schedule* schedule, const MeasureResult& measured) {
  Record r;
  r.task_key = task.key;
  r.target = task.target;
  r.task_name = task.name;
  r.template_name = task.template_name;
  if (point) r.point_json = json::write(task.space.to_json(*point));
  r.trace_json = schedule ? schedule->trace().to_json() : "{\"version\": 1, \"steps\": []}";
  r.costs = measured.costs;
  r.error = measured.error;
  if (schedule && point) r.features = candidate_features(task, *point);
  r.timestamp = static_cast<double>(std::time(nullptr));
  return r;
}

std::vector<TransferSample> transfer_samples(const Task& task, const RecordDatabase& db) {
  const size_t features = kLoopFeatures + task.space.knobs().size();
  std::vector<Record> records =
      db.records_of_template(task.template_name, task.target, task.key, 2000);
  std::map<std::string, double> best_of_task;
  for (const Record& r : records)
    if (r.ok()) {
      double& best = best_of_task.try_emplace(r.task_key, kInfinity).first->second;
      best = std::min(best, r.mean_cost());
    }
  std::vector<TransferSample> samples;
  for (const Record& r : records) {
    if (r.features.size() != features || !names_the_knobs_of(r, task.space)) continue;
    double relative = r.ok() ? best_of_task[r.task_key] / r.mean_cost() : 0.0;
    samples.push_back({r.features, relative});
  }
  return samples;
}

std::vector<TaskResult> tune_tasks(const TaskSet& tasks, RecordDatabase& db,
                                   const TuneOptions& given_options) {
  const TuneOptions options = with_peak(given_options);
  auto start = Clock::now();
  std::function<double()> elapsed = [&] {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  std::vector<TaskState> states;
  for (const Task& task : tasks.tasks) {
    if (!task.tunable()) continue;
    TaskState state;
    state.task = &task;
    state.result.key = task.key;
    state.result.name = task.name;
    state.result.flops = task.flops;
    state.result.weight = task.weight;
    start_task(state, db, options);
    states.push_back(std::move(state));
  }
  int run_trials = 0, planned = 0;
  for (const TaskState& s : states) planned += std::max(0, options.trials - s.result.trials);

  while (options.time_budget_seconds <= 0 || elapsed() < options.time_budget_seconds) {
    // The task scheduler: the largest expected gain; ties (untried tasks) by order.
    TaskState* next = nullptr;
    for (TaskState& s : states)
      if (!s.done && (!next || expected_gain(s) > expected_gain(*next))) next = &s;
    if (!next) break;
    if (!next->measurer && !start_measuring(*next, db, options)) {
      next->done = true;
      continue;
    }
    int made = run_round(*next, db, options, elapsed);
    run_trials += made;
    next->done = made == 0 || next->result.trials >= options.trials;
    if (options.progress && made > 0) {
      double eta = elapsed() / run_trials * std::max(0, planned - run_trials);
      print_progress(*next, options, elapsed(), eta);
    }
  }
  if (options.progress && options.live) *options.progress << "\n";
  if (options.confirm > 0)
    for (TaskState& s : states)
      if (s.measurer) confirm_best(s, db, options);
  if (options.settle_repeats > 0)
    for (TaskState& s : states)
      if (s.measurer) settle(s, db, options);
  std::vector<TaskResult> results;
  for (TaskState& s : states) {
    s.result.best_cost = std::isfinite(s.best) ? s.best : 0.0;
    results.push_back(std::move(s.result));
  }
  return results;
}

}  // namespace tessel::autotune

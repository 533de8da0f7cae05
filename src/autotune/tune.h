// The tuning loop over a model's tasks: a task scheduler hands out batches of trials, a
// tuner proposes candidates for the chosen task, the measurer measures them, and every
// measurement goes into the records database as soon as it is made. The default schedule
// of each task is measured and recorded too (a record without a template point), so that
// the best record of a task is never one slower than its default as measured.
//
// Resumable: the records a database already holds for a task count as its trials (those of
// the space being searched: a task tuned with its template and then with its generated
// space gets its trials in each), feed its tuner and set its best, so running again
// continues where a run stopped (or was killed). The scheduler gives the next batch to the
// task whose expected gain in model latency is largest: weight x best time x the relative
// improvement of its last batches (a task not yet tried comes first), so trials go where
// the model gains most.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "autotune/measure.h"
#include "autotune/records.h"
#include "autotune/task.h"
#include "autotune/tuner.h"

namespace tessel::autotune {

struct TuneOptions {
  std::string tuner = "xgb";       ///< random, grid, ga or xgb
  int trials = 200;                ///< trials per task and space (records already held count)
  double time_budget_seconds = 0;  ///< stop after this long (0: no limit)
  int batch = 16;                  ///< candidates per round
  uint64_t seed = 0;
  bool transfer = true;  ///< "xgb" learns from records of tasks of the same template
  /// "xgb": the model that ranks each task's first candidates (pretrained.h: the shipped
  /// one by default in `tessel tune`); null: random until the tuner trains its own.
  std::shared_ptr<const CostModel> prior;
  /// At the end of a run, the `confirm` best points of each task measured in it are
  /// measured again until each has two measurements or more (five passes at most):
  /// the best record is then the best on average, not the luckiest draw.
  int confirm = 4;
  /// Then the best point is timed against the default schedule run by run, `settle_repeats`
  /// times: it is kept (RecordDatabase::settle) only when the median of its ratios to the
  /// default is at most `settle_ratio`; otherwise the task keeps its default schedule, so
  /// that a tuned model is never slower than the untuned one kernel by kernel. 0 repeats:
  /// no verdict, the lowest average cost stands.
  int settle_repeats = 7;
  double settle_ratio = 0.98;
  /// Measure the core clock when the run starts and check every measurement against the
  /// peak it gives (measure.peak, when that is not set already).
  bool check_peak = true;
  MeasureOptions measure;
  /// Receives a progress line per round (with '\r' when `live`) and a summary per task.
  std::ostream* progress = nullptr;
  bool live = false;
};

/// One point of a task's tuning curve.
struct CurvePoint {
  int trial = 0;
  double seconds = 0;  ///< wall time since the run started
  double best_gflops = 0;
};

struct TaskResult {
  std::string key, name;
  int trials = 0;           ///< points of the space measured, in this run and before
  int failed = 0;           ///< failed records among them
  double default_cost = 0;  ///< seconds per launch of the default schedule (0: unmeasured)
  double best_cost = 0;     ///< of the best record (0: none)
  /// The best point's time over the default's, timed run by run at the end of the run (0: not
  /// timed, the default led), and whether the task keeps its default schedule (best_cost is
  /// then default_cost).
  double settled_ratio = 0;
  bool kept_default = false;
  double flops = 0;
  int weight = 0;
  std::vector<CurvePoint> curve;  ///< this run's trials
};

/// The "xgb" tuner's transfer samples for `task`: the records in `db` of other tasks of the
/// same template whose points name the same knobs in the same order (so that their features
/// mean what the task's do), each labelled with its task's best cost over its cost (0 when
/// it failed).
std::vector<TransferSample> transfer_samples(const Task& task, const RecordDatabase& db);

/// The record of a schedule of `task` measured as `measured`: of `point` of its space, or
/// (no point) of its default schedule; `schedule` null when none could be made.
Record make_record(const Task& task, const std::optional<Point>& point,
                   const schedule::Schedule* schedule, const MeasureResult& measured);

/// Tunes every tunable task of `tasks`, storing each measurement in `db`.
std::vector<TaskResult> tune_tasks(const TaskSet& tasks, RecordDatabase& db,
                                   const TuneOptions& options);

/// Writes a task's tuning curve as an SVG: best GFLOP/s against trials and against wall time.
void write_curve_svg(const TaskResult& result, const std::string& path);

}  // namespace tessel::autotune

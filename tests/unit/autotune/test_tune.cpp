// The tuning loop with a records database: every trial is recorded, a run resumes where the
// last one stopped (also after kill -9), and compiling with the records applies the best
// schedule and still computes the model's outputs.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <set>
#include <thread>

#include "autotune/apply_records.h"
#include "autotune/features.h"
#include "autotune/tune.h"
#include "autotune_test_util.h"
#include "support/json.h"

namespace tessel::autotune {
namespace {

TuneOptions quick(const std::string& tuner, int trials, int batch) {
  TuneOptions options;
  options.tuner = tuner;
  options.trials = trials;
  options.batch = batch;
  options.measure.repeats = 1;
  options.measure.min_repeat_seconds = 0.001;
  return options;
}

/// Template points recorded (the other records measure the default schedule; a point
/// measured again to confirm it counts once).
size_t trials_recorded(const RecordDatabase& db, const Task& task) {
  std::set<std::string> points;
  for (const Record& r : db.records(task.key, task.target))
    if (!r.point_json.empty()) points.insert(r.point_json);
  return points.size();
}

/// A successful record of `task` at `point` (nullopt: its default schedule) costing `costs`.
Record record_at(const Task& task, const std::optional<Point>& point, std::vector<double> costs) {
  MeasureResult measured;
  measured.costs = std::move(costs);
  return make_record(task, point, (point ? task.schedule_at(*point) : task.kernel->schedule).get(),
                     measured);
}

TEST(Tune, RecordsEveryTrialAndResumes) {
  compiler::testing::TypedGraph t = testing::two_matmuls();
  TaskSet set = testing::tasks_of(t.graph);
  testing::TempDir dir;
  RecordDatabase db(dir.file("records.db"));
  std::vector<TaskResult> first = tune_tasks(set, db, quick("random", 6, 4));
  ASSERT_EQ(first.size(), 1u);  // only the product has a template
  const Task& task = set.tasks[0];
  EXPECT_EQ(first[0].trials, 6);
  EXPECT_EQ(trials_recorded(db, task), 6u);
  // And the default schedule's, and the leaders measured again to confirm them: the best
  // point (of seven, the default's included) holds two measurements or more.
  EXPECT_GE(db.count(task.key, task.target), 7u + 2u);
  EXPECT_LE(db.count(task.key, task.target), 7u + 7u);
  EXPECT_EQ(first[0].curve.size(), 6u);
  EXPECT_GT(first[0].default_cost, 0);
  std::vector<RecordDatabase::RankedPoint> best = db.best_points(task.key, task.target, 1);
  ASSERT_EQ(best.size(), 1u);
  EXPECT_GE(best[0].measurements, 2);
  // A leading point, timed against the default run by run, is kept only when it runs
  // faster; a leading default needs no verdict.
  bool default_leads = best[0].latest.point_json.empty();
  EXPECT_EQ(first[0].settled_ratio > 0, !default_leads);
  EXPECT_EQ(first[0].kept_default, default_leads || first[0].settled_ratio > 0.98);
  EXPECT_EQ(db.best(task.key, task.target)->point_json,
            first[0].kept_default ? "" : best[0].latest.point_json);
  if (!first[0].kept_default) {
    EXPECT_EQ(first[0].best_cost, best[0].average_cost);
  }
  for (const Record& r : db.records(task.key, task.target)) {
    EXPECT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.template_name, "matmul");
    EXPECT_EQ(r.features.size(),
              r.point_json.empty() ? 0 : kLoopFeatures + task.space.knobs().size());
  }

  // Again with more trials: the six recorded ones count, three more are measured.
  std::vector<TaskResult> second = tune_tasks(set, db, quick("random", 9, 4));
  EXPECT_EQ(second[0].trials, 9);
  EXPECT_EQ(second[0].curve.size(), 3u);
  EXPECT_EQ(trials_recorded(db, task), 9u);
  // Already done: nothing is measured.
  EXPECT_TRUE(tune_tasks(set, db, quick("random", 9, 4))[0].curve.empty());
}

TEST(Tune, ModelGuidedAndGeneticTunersRunTheLoop) {
  compiler::testing::TypedGraph t = testing::two_matmuls();
  TaskSet set = testing::tasks_of(t.graph);
  testing::TempDir dir;
  RecordDatabase db(dir.file("records.db"));
  for (const char* tuner : {"ga", "xgb", "grid"}) {
    RecordDatabase own(dir.file(std::string(tuner) + ".db"));
    std::vector<TaskResult> results = tune_tasks(set, own, quick(tuner, 12, 6));
    EXPECT_EQ(results[0].trials, 12) << tuner;
    EXPECT_EQ(results[0].failed, 0) << tuner;
  }
}

TEST(Tune, CompilingWithRecordsAppliesTheBestSchedule) {
  compiler::testing::TypedGraph t = testing::two_matmuls();
  TaskSet set = testing::tasks_of(t.graph);
  testing::TempDir dir;
  auto db = std::make_shared<RecordDatabase>(dir.file("records.db"));
  tune_tasks(set, *db, quick("random", 4, 4));
  Record best = *db->best(set.tasks[0].key, set.tasks[0].target);

  auto applied = std::make_shared<std::vector<AppliedRecord>>();
  compiler::CompileOptions options;
  options.choose_schedule = choose_from_records(db, target_key(target::host()), applied);
  compiler::CompiledModel compiled = compiler::compile_graph(*set.graph, options);
  ASSERT_EQ(applied->size(), 2u);  // the product (launched twice) and the Sigmoid
  int tuned = 0;
  for (const AppliedRecord& a : *applied) tuned += a.tuned;
  EXPECT_EQ(tuned, 1);
  EXPECT_EQ((*applied)[0].task_key, set.tasks[0].key);
  EXPECT_TRUE((*applied)[0].tuned);
  EXPECT_EQ((*applied)[0].best_cost, best.mean_cost());

  runtime::NDArray x = compiler::testing::random_array({64, 32}, 5);
  std::vector<runtime::NDArray> expected = compiler::testing::run_unfused(t.graph, {&x});
  runtime::Model model = compiler::jit_model(std::move(compiled));
  std::vector<runtime::NDArray> outputs = model.run({&x});
  ASSERT_EQ(outputs.size(), 3u);
  for (size_t o = 0; o < outputs.size(); ++o)
    compiler::testing::expect_close(outputs[o], expected[o], 1e-4, 1e-4);
}

/// A 256^3 product's task and an empty records database, for the verdict tests.
struct SquareMatmul {
  compiler::testing::TypedGraph graph = testing::square_matmul(256);
  TaskSet set = testing::tasks_of(graph.graph);
  testing::TempDir dir;
  RecordDatabase db{dir.file("records.db")};
  const Task& task() const { return set.tasks.at(0); }
};

TEST(Tune, ABestPointSlowerThanTheDefaultRunByRunIsNotKept) {
  // A 256^3 product whose records hold its slowest-looking point (one-row register tiles of
  // one panel, a fraction of the default's speed) measured twice as impossibly fast, as a
  // faulty clock would: it leads the ranking, and confirming passes it by.
  SquareMatmul m;
  const Task& task = m.task();
  RecordDatabase& db = m.db;
  Point slow = task.space.point_at(0);
  ASSERT_EQ(task.space.value(slow, "tile_m"), 1);
  Record lucky = record_at(task, slow, {1e-9});
  db.add(lucky);
  db.add(lucky);
  TuneOptions options = quick("random", 3, 2);
  options.check_peak = false;  // the records' fault is what the verdict must catch
  std::vector<TaskResult> results = tune_tasks(m.set, db, options);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(db.best_points(task.key, task.target, 1).at(0).latest.point_json, lucky.point_json);
  // Timed against the default run by run, the point is slower: the default is kept.
  EXPECT_GT(results[0].settled_ratio, 1.0);
  EXPECT_TRUE(results[0].kept_default);
  EXPECT_EQ(db.verdict(task.key, task.target)->point_json, "");
  EXPECT_EQ(db.best(task.key, task.target)->point_json, "");
}

TEST(Tune, ALeadingDefaultOverridesAnEarlierVerdict) {
  // An earlier run settled on a point; now the default's records lead (measured twice as
  // impossibly fast): the run's verdict is the default, and best() follows it.
  SquareMatmul m;
  const Task& task = m.task();
  RecordDatabase& db = m.db;
  Record point = record_at(task, task.space.point_at(1), {1.0});
  db.add(point);
  db.settle({task.key, task.target, point.point_json, 0.9, 1700000000});
  Record fast_default = record_at(task, std::nullopt, {1e-9});
  db.add(fast_default);
  db.add(fast_default);
  ASSERT_EQ(db.best(task.key, task.target)->point_json, point.point_json);
  TuneOptions options = quick("random", 3, 2);
  options.check_peak = false;
  std::vector<TaskResult> results = tune_tasks(m.set, db, options);
  EXPECT_TRUE(results.at(0).kept_default);
  EXPECT_EQ(db.verdict(task.key, task.target)->point_json, "");
  EXPECT_EQ(db.verdict(task.key, task.target)->ratio, 1.0);
  EXPECT_EQ(db.best(task.key, task.target)->point_json, "");
}

TEST(Tune, AStaleRecordKeepsTheDefaultSchedule) {
  compiler::testing::TypedGraph t = testing::two_matmuls();
  TaskSet set = testing::tasks_of(t.graph);
  testing::TempDir dir;
  auto db = std::make_shared<RecordDatabase>(dir.file("records.db"));
  Record stale;
  stale.task_key = set.tasks[0].key;
  stale.target = set.tasks[0].target;
  stale.task_name = "stale";
  stale.trace_json =
      R"({"version": 1, "steps": [{"primitive": "split", "stage": "nope", "loop": "i", "factor": 4}]})";
  stale.costs = {1e-6};
  db->add(stale);
  auto applied = std::make_shared<std::vector<AppliedRecord>>();
  compiler::CompileOptions options;
  options.choose_schedule = choose_from_records(db, target_key(target::host()), applied);
  compiler::compile_graph(*set.graph, options);
  EXPECT_FALSE((*applied)[0].tuned);
  EXPECT_NE((*applied)[0].note.find("does not replay"), std::string::npos) << (*applied)[0].note;
}

TEST(Tune, ARecordOfAnotherTemplateVersionIsNotMeasuredAgain) {
  compiler::testing::TypedGraph t = testing::two_matmuls();
  TaskSet set = testing::tasks_of(t.graph);
  const Task& task = set.tasks[0];
  testing::TempDir dir;
  RecordDatabase db(dir.file("records.db"));
  Record old_version;
  old_version.task_key = task.key;
  old_version.target = task.target;
  old_version.task_name = task.name;
  old_version.point_json = R"({"a_knob_no_longer_there":1})";
  old_version.costs = {1e-9};  // the best by far, so a leader to confirm
  db.add(old_version);
  std::vector<TaskResult> results = tune_tasks(set, db, quick("random", 4, 4));
  EXPECT_EQ(results[0].trials, 4);  // it counts as one of the four trials
  std::vector<RecordDatabase::RankedPoint> best = db.best_points(task.key, task.target, 1);
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0].latest.point_json, old_version.point_json);
  EXPECT_EQ(best[0].measurements, 1);
}

TEST(Tune, KillNineLosesNoCommittedRecordAndTheRunResumes) {
  compiler::testing::TypedGraph t = testing::two_matmuls();
  TaskSet set = testing::tasks_of(t.graph);
  const Task& task = set.tasks[0];
  testing::TempDir dir;
  std::string path = dir.file("records.db");
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // the tuner, until it is killed; never back into the test runner
    try {
      RecordDatabase db(path);
      tune_tasks(set, db, quick("random", 100000, 2));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tuner process: %s\n", e.what());
    }
    ::_exit(1);
  }
  RecordDatabase watcher(path);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (trials_recorded(watcher, task) < 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  size_t kept = trials_recorded(watcher, task);
  ASSERT_GE(kept, 3u);
  for (const Record& r : watcher.records(task.key, task.target)) EXPECT_TRUE(r.ok()) << r.error;

  RecordDatabase db(path);
  std::vector<TaskResult> resumed =
      tune_tasks(set, db, quick("random", static_cast<int>(kept) + 2, 2));
  EXPECT_EQ(resumed[0].curve.size(), 2u);
  EXPECT_EQ(trials_recorded(db, task), kept + 2);
}

}  // namespace
}  // namespace tessel::autotune

// Helpers for the autotune tests: small models whose kernels have tuning templates, points
// of a task's space checked against its default schedule, and temporary record databases.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>

#include "autotune/measure.h"
#include "autotune/task.h"
#include "unit/compiler/compiler_test_util.h"

namespace tessel::autotune::testing {

using compiler::testing::TypedGraph;

/// x[64, 32] -> MatMul by a constant [32, 48] -> Relu, twice with other weights (one task
/// of weight 2), and Sigmoid(x) (an element-wise task without a template): three outputs.
inline TypedGraph two_matmuls() {
  TypedGraph t;
  graph::Value* x = t.input("x", {64, 32});
  graph::Value* a =
      t.node("Relu", {t.node("MatMul", {x, t.constant("w1", {32, 48}, 1)}, {64, 48})}, {64, 48});
  graph::Value* b =
      t.node("Relu", {t.node("MatMul", {x, t.constant("w2", {32, 48}, 2)}, {64, 48})}, {64, 48});
  t.output(a);
  t.output(b);
  t.output(t.node("Sigmoid", {x}, {64, 32}));
  return t;
}

/// One product of [n, n] by a constant [n, n].
inline TypedGraph square_matmul(int64_t n) {
  TypedGraph t;
  graph::Value* x = t.input("x", {n, n});
  t.output(t.node("MatMul", {x, t.constant("w", {n, n}, 1)}, {n, n}));
  return t;
}

/// The tasks of `graph` after the default graph passes (blocked convolutions included),
/// compiled for `target`.
inline TaskSet tasks_of(const graph::Graph& graph, const target::Target& target = target::host()) {
  std::vector<graph::TensorType> types;
  for (const graph::Value* in : graph.inputs()) types.push_back(in->type);
  compiler::CompileOptions options;
  options.build.target = target;
  return extract_tasks(compiler::optimize_graph(graph, types, {}, options), options);
}

/// The first task made by template `name`; fails the test when there is none.
inline const Task& task_of_template(const TaskSet& set, const std::string& name) {
  for (const Task& t : set.tasks)
    if (t.template_name == name) return t;
  ADD_FAILURE() << "no task of template " << name;
  throw std::runtime_error("no task of template " + name);
}

/// The given points of the task's space build, run and match the default.
inline void expect_match_default(const Task& task, const std::vector<Point>& points,
                                 const target::Target& target = target::host()) {
  MeasureOptions options;
  options.target = target;
  options.repeats = 1;
  options.min_repeat_seconds = 0;
  Measurer measurer(task.kernel, options);
  std::vector<std::shared_ptr<schedule::Schedule>> candidates;
  for (const Point& p : points) candidates.push_back(task.schedule_at(p));
  std::vector<MeasureResult> results = measurer.measure(candidates);
  for (size_t i = 0; i < results.size(); ++i)
    EXPECT_TRUE(results[i].ok()) << task.name << " (" << task.template_name << ") at "
                                 << task.space.describe(points[i]) << ": " << results[i].error;
}

/// Sampled points of the task's space build, run and match the default: the corners
/// (every knob at its first, every knob at its last value), then random points.
inline void expect_points_match_default(const Task& task, int samples,
                                        const target::Target& target = target::host()) {
  std::mt19937_64 rng(7);
  std::vector<Point> points = {task.space.point_at(0), task.space.point_at(task.space.size() - 1)};
  for (int i = 0; i < samples; ++i) points.push_back(task.space.random_point(rng));
  expect_match_default(task, points, target);
}

/// A fresh directory removed when the object goes.
class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("tessel-autotune-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::filesystem::path path_;
};

}  // namespace tessel::autotune::testing

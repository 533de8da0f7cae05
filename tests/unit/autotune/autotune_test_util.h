// Helpers for the autotune tests: small models whose kernels have tuning templates, and
// temporary record databases.
#pragma once

#include <filesystem>
#include <string>

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

/// The tasks of `graph` after the default graph passes (blocked convolutions included).
inline TaskSet tasks_of(const graph::Graph& graph) {
  std::vector<graph::TensorType> types;
  for (const graph::Value* in : graph.inputs()) types.push_back(in->type);
  return extract_tasks(compiler::optimize_graph(graph, types));
}

/// The first task made by template `name`; fails the test when there is none.
inline const Task& task_of_template(const TaskSet& set, const std::string& name) {
  for (const Task& t : set.tasks)
    if (t.template_name == name) return t;
  ADD_FAILURE() << "no task of template " << name;
  throw std::runtime_error("no task of template " + name);
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

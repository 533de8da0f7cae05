// ReferenceExecutor: runs a graph node by node, one kernel per node, with no graph passes,
// fusion or memory planning -- the independent reference the compiler's tests compare the
// optimised, fused model with (compiler::GraphExecutor is what users run).
//
// Compilation walks the nodes in order with concrete input types: nodes whose inputs are all
// known at compile time are evaluated then (constant folding with our own kernels), metadata
// operators fold from types, every other node becomes one kernel (compile_node). A plan is
// specialised on the shapes of the graph inputs and on the values of the few inputs that
// determine shapes (e.g. a Reshape's target shape fed as a graph input); plans are cached by
// that key, so a model with static shapes compiles once.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "driver/build.h"
#include "executor/node_kernel.h"
#include "graph/graph.h"

namespace tessel::executor {

struct ExecutorOptions {
  driver::BuildOptions build;
};

class ReferenceExecutor {
 public:
  /// Prepares `graph` (kept by reference: it must outlive the executor). Verifies it.
  explicit ReferenceExecutor(const graph::Graph& graph, ExecutorOptions options = {});
  ~ReferenceExecutor();

  /// Runs the graph on `inputs` (one per graph input, in order); returns one array per graph
  /// output. Compiles a plan first when none matches the inputs' shapes (and shape values).
  /// Throws CompileError naming the input for a wrong count, dtype or shape.
  std::vector<runtime::NDArray> run(const std::vector<const runtime::NDArray*>& inputs);

  /// Compiles the plan for inputs like these now (run() does it on demand).
  void prepare(const std::vector<const runtime::NDArray*>& inputs);

  /// Number of kernels in the plan used by the last run (or prepare).
  size_t num_kernels() const;

  /// Graph inputs whose values (not only shapes) the compilation needs.
  const std::vector<bool>& value_dependent_inputs() const { return value_dependent_; }

 private:
  struct Plan;
  Plan& plan_for(const std::vector<const runtime::NDArray*>& inputs);
  std::unique_ptr<Plan> compile(const std::vector<const runtime::NDArray*>& inputs) const;

  const graph::Graph& graph_;
  ExecutorOptions options_;
  std::vector<bool> value_dependent_;
  std::map<std::string, std::unique_ptr<Plan>> plans_;
  Plan* last_plan_ = nullptr;
};

}  // namespace tessel::executor

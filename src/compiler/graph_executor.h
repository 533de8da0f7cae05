// GraphExecutor: runs a graph in this process, compiling it on first use.
//
// For each distinct set of input shapes (and values of the few inputs that determine
// shapes, e.g. a Reshape's target shape fed as a graph input), the graph is compiled with
// compile_model -- passes, fusion, memory plan -- and JIT-compiled into a runtime::Model;
// the models are cached by that key, so a model with static shapes compiles once. With the
// SharedLibrary backend each model goes through a compiled model library instead, exactly
// as `tessel compile` writes it and an application loads it. With `symbolic_batch`, inputs
// whose declared leading dimension is a symbol keep it: one model (symbolic_batch.h) serves
// every batch size.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/compile_model.h"
#include "graph/graph.h"
#include "runtime/model.h"

namespace tessel::compiler {

/// How compiled models are made runnable.
enum class Backend {
  Jit,            ///< kernels JIT-compiled in this process
  SharedLibrary,  ///< written as a compiled model library and loaded the way users load it
};

class GraphExecutor {
 public:
  /// Prepares `graph` (kept by reference: it must outlive the executor). Verifies it.
  explicit GraphExecutor(const graph::Graph& graph, CompileOptions options = {},
                         Backend backend = Backend::Jit, bool symbolic_batch = false);
  ~GraphExecutor();

  /// Runs the graph on `inputs` (one per graph input, in order); returns one array per graph
  /// output. Compiles first when no compiled model matches the inputs. Throws CompileError
  /// naming the input for a wrong count, dtype or shape.
  std::vector<runtime::NDArray> run(const std::vector<const runtime::NDArray*>& inputs);

  /// Compiles for inputs like these now (run() does it on demand).
  void prepare(const std::vector<const runtime::NDArray*>& inputs);

  /// The compiled model used by the last run (or prepare); nullptr before.
  runtime::Model* last_model() const { return last_ ? last_->model.get() : nullptr; }
  /// Statistics of that compilation.
  const CompileStats* last_stats() const { return last_ ? &last_->stats : nullptr; }
  /// How many models the executor compiled.
  size_t compilations() const { return compiled_.size(); }

  /// Graph inputs whose values (not only shapes) the compilation needs.
  const std::vector<bool>& value_dependent_inputs() const { return value_dependent_; }

 private:
  struct Compiled {
    std::unique_ptr<runtime::Model> model;
    CompileStats stats;
    /// For each input of the model, the graph input it is.
    std::vector<size_t> graph_input;
  };
  Compiled& compiled_for(const std::vector<const runtime::NDArray*>& inputs);

  const graph::Graph& graph_;
  CompileOptions options_;
  Backend backend_;
  bool symbolic_batch_;
  std::vector<bool> value_dependent_;
  std::map<std::string, std::unique_ptr<Compiled>> compiled_;
  Compiled* last_ = nullptr;
};

}  // namespace tessel::compiler

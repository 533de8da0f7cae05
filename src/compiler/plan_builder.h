// PlanBuilder: turns a typed, optimised graph into the steps, tensors and weights of a
// runtime::ModelPlan, with its kernels.
//
// Each fused group becomes one kernel launch (equal groups share a kernel); with a symbolic
// batch, a launch touching batched tensors runs per sample and its scratch outputs are
// batched too, and batched tensors live in the batch arena. A control-flow
// node (If, Loop, Scan) compiles each body as a graph of its own into the same plan, between
// the copies, jumps and loop tests that run it (control_flow_plan.cpp). Once every step is
// in, the arena tensors are placed: a tensor lives from the first step touching it to the
// last, and one used both inside a loop and outside it lives across the whole loop.
//
// Values whose extent the run finds (passes/run_time_extents.h) are compact where steps
// write and read them (outside the arena, at the run's extent) and padded where kernels do
// (in the arena, at the largest extent): a PadToBound step makes the padded twin of a
// step's output before the first kernel reading it, a TrimFromBound step the compact twin
// of a kernel's output before a step or the caller reads it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/buffer_views.h"
#include "compiler/compile_model.h"
#include "compiler/fold_stages.h"
#include "compiler/symbolic_batch.h"
#include "graph/graph.h"
#include "passes/run_time_extents.h"
#include "runtime/model_plan.h"

namespace tessel::compiler {

/// The plan's tensor table: one tensor per graph value that a step or the caller touches,
/// with its storage; the weights are collected (each constant once). With a symbolic
/// batch, the tensors of batched values are marked batched.
class TensorTable {
 public:
  TensorTable(runtime::ModelPlan& plan, const SymbolicBatch* batch) : plan_(plan), batch_(batch) {}

  /// Makes the graph's inputs the model's inputs.
  void add_model_inputs(const graph::Graph& graph);
  /// Makes `value` (a body's input) stand for tensor `id`.
  void bind(const graph::Value& value, int id);
  /// The tensor of `value`, created on first use (constants go to the weights).
  int of(const graph::Value& value);
  /// The tensor of `value`, or -1 when nothing uses it.
  int find(const graph::Value& value) const;
  /// A new arena tensor (a scratch output, a loop's iteration or state), batched or not.
  int arena(const std::string& name, const graph::TensorType& type, bool batched = false);
  /// Whether `value` carries the symbolic batch.
  bool is_batched(const graph::Value& value) const;
  /// A new weight tensor holding `data`.
  int constant(const std::string& name, std::shared_ptr<const runtime::NDArray> data);
  /// The weights blob, 64-byte aligned.
  std::shared_ptr<runtime::NDArray> weights() const;

 private:
  int add(const std::string& name, const graph::TensorType& type, runtime::Storage storage,
          bool batched = false);
  int add_weight(const std::string& name, const graph::TensorType& type,
                 std::shared_ptr<const runtime::NDArray> data);

  runtime::ModelPlan& plan_;
  const SymbolicBatch* batch_;
  std::map<const graph::Value*, int> ids_;
  std::map<const runtime::NDArray*, int64_t> weight_offsets_;
  std::vector<std::shared_ptr<const runtime::NDArray>> weights_;
};

class PlanBuilder {
 public:
  /// `batch` (kept by the caller; nullptr: static shapes) names the batched values.
  PlanBuilder(CompiledModel& model, const CompileOptions& options, const SymbolicBatch* batch);

  /// Fills the model's plan, kernels and weights from `graph`, the model.
  void build(const graph::Graph& graph);

 private:
  /// Appends the steps computing `graph` (its inputs are model inputs or bound already).
  void emit_graph(const graph::Graph& graph);
  /// The step that runs `group`, when it has work to do.
  void emit_group(const FusedGroup& group, size_t index, size_t count);
  /// A data-dependent operator's step (NonZero, Unique, NonMaxSuppression, ...): its
  /// outputs' extents come from the run, so no body may give them (CompileError naming the
  /// node).
  void emit_data_dependent(const graph::Node& node, const graph::Graph& graph);
  /// The twin of tensor `id` a step of kind `made_by` makes on first use: PadToBound, the
  /// padded twin of a compact dynamic tensor; TrimFromBound, the compact twin of a padded
  /// one. `id` itself when it is not of that kind.
  int twin(int id, runtime::StepKind made_by);
  /// If, Loop or Scan (control_flow_plan.cpp).
  void emit_control_flow(const graph::Node& node);
  void emit_if(const graph::Node& node);
  void emit_loop(const graph::Node& node);
  void emit_scan(const graph::Node& node);
  /// What a body's inputs are: tensors, their types, their values where known.
  struct BodyArgs {
    std::vector<int> ids;
    std::vector<graph::TensorType> types;
    std::vector<const runtime::NDArray*> values;
    void add(int id, const graph::TensorType& type, const runtime::NDArray* value = nullptr) {
      ids.push_back(id);
      types.push_back(type);
      values.push_back(value);
    }
  };
  /// The tensors of the node's inputs from `first` on (a body's captured values).
  BodyArgs node_args(const graph::Node& node, size_t first);
  /// Compiles `body` in place, its inputs `args`; returns the tensors of its outputs.
  std::vector<int> emit_body(const graph::Graph& body, const BodyArgs& args);
  /// Closes the loop whose test is step `top`: counts the iteration, jumps back to the test,
  /// and makes the test leave to the step after.
  void emit_loop_end(int iteration, int top, const std::string& label);
  /// Copies each `from[k]` into `to[k]` (a pair naming one tensor twice copies nothing);
  /// a source that is also a destination is saved first.
  void emit_copies(const std::vector<int>& from, const std::vector<int>& to,
                   const std::string& label);

  /// Appends a step that runs no kernel; returns its index.
  int add_step(runtime::PlanStep step);
  int next_step() const { return static_cast<int>(model_.plan.steps.size()); }

  void place_activations();

  CompiledModel& model_;
  const CompileOptions& options_;
  const SymbolicBatch* batch_;
  TensorTable table_;
  std::map<std::string, std::string> kernel_of_key_;
  FoldCache fold_cache_;
  /// Folded constants (packed weights) the plan's tensors refer to.
  std::vector<std::unique_ptr<graph::Value>> folded_values_;
  /// Per step: the tensor its kernel may overwrite with its output, or -1.
  std::vector<int> in_place_of_step_;
  /// Values living inside another's buffer (concatenations without copies), by tensor.
  std::vector<std::pair<const graph::Value*, BufferSlice>> slices_;
  /// The first and last step of each loop.
  std::vector<std::pair<int, int>> loops_;
  /// The model's graph (emit_graph also compiles bodies).
  const graph::Graph* model_graph_ = nullptr;
  /// The values (of the model and its bodies) whose extent the run finds.
  passes::RunTimeExtents run_time_;
  /// The twins made so far: padded ones of compact tensors, compact ones of padded tensors.
  std::map<int, int> twins_;
};

}  // namespace tessel::compiler

// One fused group -> one tensor-expression DAG -> one schedule -> one loop-IR function.
//
// Each node of the group adds its operator's compute over the tensors of the nodes before
// it (placeholders for values from outside the group); stages that read only constants
// are evaluated now (fold_stages.h); the intermediate results of the
// group's chain are inlined into their consumers, the anchor's schedule (or the generic one)
// is applied with the group's outputs as the outputs, and the result is lowered.
#pragma once

#include <string>
#include <vector>

#include "compiler/fold_stages.h"
#include "compiler/fusion.h"
#include "driver/build.h"
#include "graph/graph.h"
#include "ir/stmt.h"
#include "ops/op_context.h"
#include "schedules/knobs.h"

namespace tessel::compiler {

class GroupScheduler;

struct GroupKernel {
  /// Identifies the kernel's computation (operators, attributes, types, wiring and the
  /// compile-time constants baked in): groups with equal keys share one kernel.
  std::string key;
  /// The schedule and its arguments, ready to lower: the default schedule of the group.
  std::shared_ptr<schedule::Schedule> schedule;
  /// Schedules the same DAG again, e.g. at other knob values of its tuning template.
  std::shared_ptr<const GroupScheduler> scheduler;
  std::vector<te::Tensor> args;
  /// The graph value of each argument: the group's inputs read by the kernel, then one entry
  /// per output the kernel writes (nullptr for an output the graph omits: it needs scratch).
  std::vector<const graph::Value*> arg_values;
  size_t num_inputs = 0;
  /// Types of the written outputs (for the scratch ones too).
  std::vector<graph::TensorType> output_types;
  /// Constants the kernel reads that the graph does not have: stages of the DAG evaluated
  /// at compile time (fold_stages.h), e.g. packed weights. arg_values point to them.
  std::vector<std::unique_ptr<graph::Value>> folded_values;
  /// Whether output 0 may share the memory of input `in_place_input` (same size, every
  /// element read only where the same element is written); -1 when not.
  int in_place_input = -1;
};

/// Schedules a group's DAG: the chain's intermediate results inlined, then the schedule of
/// the anchor (or of the single node; the generic one otherwise) at chosen knob values.
/// Keeps pointers into the graph the group came from, and its own copy of the target the
/// schedules are for. Thread-safe.
class GroupScheduler {
 public:
  GroupScheduler(std::vector<te::Tensor> outputs, std::vector<te::Tensor> intermediates,
                 std::unique_ptr<ops::OpContext> scheduled, target::Target target);
  ~GroupScheduler();
  /// The DAG's outputs (the kernel's output arguments).
  const std::vector<te::Tensor>& outputs() const { return outputs_; }
  /// A fresh schedule at `knobs` (empty: the default schedule).
  std::shared_ptr<schedule::Schedule> schedule(const schedules::KnobValues& knobs = {}) const;
  /// The tuning template of the scheduled node; no knobs when it has none.
  schedules::TuningSpace tuning_space() const;
  /// A fresh schedule with the chain's intermediate results inlined (what the schedules of
  /// the group, this one's and those generated from the compute alone, start from:
  /// autotune/generated_space.h).
  std::shared_ptr<schedule::Schedule> inlined_chain() const;
  /// The target the schedules are for.
  const target::Target& target() const { return target_; }

 private:
  std::vector<te::Tensor> outputs_;
  std::vector<te::Tensor> intermediates_;
  /// The node whose operator schedules the group; nullptr: the generic schedule.
  std::unique_ptr<ops::OpContext> scheduled_;
  target::Target target_;
};

/// Builds the tensor expressions and the schedule of `group`. Node types come from the
/// graph's values (the graph must be typed); constants are the values' data, and the
/// stages that read only constants are folded (kernels shared through `fold_cache`). The
/// computes and schedules are sized for `target`. Throws CompileError naming the node whose
/// operator fails.
GroupKernel build_group_kernel(const FusedGroup& group, const target::Target& target,
                               FoldCache& fold_cache);

/// Lowers and optimises a group kernel into the function `name`.
ir::PrimFunc lower_group_kernel(const GroupKernel& kernel, const std::string& name,
                                const driver::BuildOptions& options = {});

}  // namespace tessel::compiler

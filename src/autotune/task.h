// Tuning tasks: the distinct kernels of a compiled model, each a search problem of its own.
//
// A task is one fused group's kernel: its key (a hash of the structure of its computation
// and of the target, so that equal kernels of one model or of several models share their
// tuning records), the number of launches per inference (its weight), the floating-point
// operations per launch, and what is needed to schedule it again: the group's scheduler
// and, where its anchor operator declares one, a tuning template (schedules/knobs.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "autotune/search_space.h"
#include "compiler/compile_model.h"
#include "compiler/group_kernel.h"
#include "compiler/row_blocks.h"

namespace tessel::autotune {

/// Where the tasks' search spaces come from: the templates of their anchor operators
/// (schedules/knobs.h; tasks without one are not tuned), or the rules that generate schedules from
/// the compute alone (autotune/generated_space.h), for every task.
enum class SearchKind { Templates, Auto };

struct Task {
  std::string key;     ///< 16 hex digits: structure of the computation + target
  std::string target;  ///< target_key() of the target the task is compiled for
  std::string name;    ///< readable: the group's operators and output shape
  int weight = 0;      ///< launches per inference
  double flops = 0;    ///< floating-point operations per launch
  /// The kernel at its default schedule (arguments, scheduler).
  std::shared_ptr<const compiler::GroupKernel> kernel;
  /// The template: its name and knobs (empty when the anchor declares none); for
  /// SearchKind::Auto, the generated space ("auto.<rule>").
  std::string template_name;
  SearchSpace space;
  SearchKind search = SearchKind::Templates;

  bool tunable() const { return !space.knobs().empty(); }
  /// The schedule of `point` of the template.
  std::shared_ptr<schedule::Schedule> schedule_at(const Point& point) const;
};

/// The tasks of a model and the graph their kernels point into.
struct TaskSet {
  std::shared_ptr<const graph::Graph> graph;
  /// The control-flow bodies as compiled, whose kernels some tasks are.
  std::vector<std::shared_ptr<const graph::Graph>> bodies;
  /// The groups rebuilt for blocks of rows (compiler/row_blocks.h), whose kernels some
  /// tasks are, as the plan runs them.
  std::vector<std::shared_ptr<const compiler::RowBlocks>> row_blocks;
  std::vector<Task> tasks;  ///< in order of first launch
};

/// The key of `target` run with `threads` threads (0: one per hardware thread):
/// "llvm -mcpu=<cpu> -lanes=<float lanes> -threads=<n>". Records are kept per key: a
/// schedule's speed depends on all three, and a record of one vector width never applies to
/// another.
std::string target_key(const target::Target& target, int threads = 0);

/// The key of a kernel's computation on `target` (a target_key).
std::string task_key(const compiler::GroupKernel& kernel, const std::string& target);

/// Floating-point operations computed by a DAG (reductions count one combine per step).
double count_flops(const std::vector<te::Tensor>& outputs);
/// Floating-point operations of one evaluation of `e` (vector lanes counted; reductions
/// scaled by their constant extents).
double count_flops(const ir::Expr& e);

/// The tasks of `graph` (typed, constants folded: passes::default_pipeline), grouped by
/// fusion as compile_graph does, with equal kernels merged (and the kernels of control-flow
/// bodies, weighted by their runs: a loop body's by its trips); for the target and thread
/// count of `options`, with the search spaces of `search`.
TaskSet extract_tasks(std::shared_ptr<const graph::Graph> graph,
                      const compiler::CompileOptions& options = {},
                      SearchKind search = SearchKind::Templates);

}  // namespace tessel::autotune

// compile_model: a graph -> graph passes -> fused kernels + memory plan + weights.
//
// The result is everything a compiled model is made of: the kernels as loop-IR functions,
// the execution plan (runtime::ModelPlan: tensors, arena offsets, kernel launches) and the
// weights blob. It becomes a runtime::Model in this process (jit_model) or a shared
// library (driver::export_model).
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/fusion.h"
#include "driver/build.h"
#include "graph/graph.h"
#include "ir/stmt.h"
#include "passes/pipeline.h"
#include "runtime/model.h"
#include "runtime/model_plan.h"
#include "runtime/ndarray.h"

namespace tessel::compiler {

struct GroupKernel;

/// Chooses a kernel's schedule in place of its default one (e.g. its best tuning record):
/// a trace to replay on the kernel's DAG, or nothing to keep the default.
using ScheduleChooser = std::function<std::optional<schedule::Trace>(const GroupKernel&)>;

struct CompileOptions {
  /// Printing, timing and early stop of the graph passes.
  passes::PipelineOptions pipeline;
  /// The optional graph passes to run.
  passes::PassSelection passes;
  driver::BuildOptions build;
  FusionOptions fusion;
  /// Threads the model runs with (0: the runtime's default).
  int num_threads = 0;
  /// When set, receives one line per compiled kernel (progress) and the phase times.
  std::ostream* progress = nullptr;
  /// When set, may replace each distinct kernel's default schedule.
  ScheduleChooser choose_schedule;
};

struct CompileStats {
  size_t nodes = 0;            ///< operator nodes of the graph
  size_t kernel_launches = 0;  ///< kernel steps of the plan (fused groups with work to do)
  size_t unique_kernels = 0;   ///< distinct kernels (equal groups share one)
  int in_place = 0;            ///< buffers that took the memory of their input
  int layout_changes = 0;      ///< layout changes run (to and from NCHW[x]c), fused or alone
  int layout_kernels = 0;      ///< launches of kernels that only change layouts (a pass each)
  int concats_in_place = 0;    ///< concatenations whose inputs were computed in their place
  int slices_in_place = 0;     ///< slices and splits whose outputs are windows of their input
};

struct CompiledModel {
  /// The optimised graph the kernels were built from.
  std::shared_ptr<const graph::Graph> graph;
  runtime::ModelPlan plan;
  /// The weights blob (64-byte aligned; plan.weights_bytes long).
  std::shared_ptr<runtime::NDArray> weights;
  std::vector<ir::PrimFunc> kernels;
  /// The fused groups, in launch order (their nodes point into the compiled graph or one
  /// of the bodies).
  std::vector<FusedGroup> groups;
  /// The control-flow bodies as compiled (optimised for the types their nodes pass).
  std::vector<std::shared_ptr<const graph::Graph>> bodies;
  CompileStats stats;
};

/// A control-flow body as compile_graph compiles it (specialised to what its node passes it,
/// through the graph passes), with how often it runs per run of its node.
struct CompiledBody {
  std::shared_ptr<const graph::Graph> graph;
  /// If: 1 per branch; Loop: its trip count (1 without one); Scan: its length (times the
  /// batch in opset 8).
  int64_t runs = 1;
};

/// The bodies of control-flow node `node` (If, Loop, Scan) of a graph that compile_graph
/// takes, as it compiles them (task extraction reads their kernels).
std::vector<CompiledBody> compiled_bodies(const graph::Node& node, const CompileOptions& options);

struct SymbolicBatch;

/// Fuses, builds and lowers the kernels and plans the memory of `graph`, which must be
/// typed with static shapes and have its constants folded (passes::default_pipeline). With
/// `batch` (see symbolic_batch.h), `graph` is one sample's and the plan runs any batch.
CompiledModel compile_graph(const graph::Graph& graph, const CompileOptions& options = {},
                            const SymbolicBatch* batch = nullptr);

/// The graph specialised to `input_types` (inputs with a value in `input_values` become
/// constants), then the graph passes (passes::default_pipeline): what compile_graph takes.
std::shared_ptr<const graph::Graph> optimize_graph(
    const graph::Graph& graph, const std::vector<graph::TensorType>& input_types,
    const std::vector<const runtime::NDArray*>& input_values = {},
    const CompileOptions& options = {});

/// The whole flow for one model: the graph specialised to `input_types` (inputs with a
/// value in `input_values` become constants), the graph passes (passes::default_pipeline),
/// then compile_graph. An input type whose leading dimension is a symbol ("N") gives a
/// model for any batch size (symbolic_batch.h); CompileError naming the node or value
/// when the model does not compute its samples apart.
CompiledModel compile_model(const graph::Graph& graph,
                            const std::vector<graph::TensorType>& input_types,
                            const std::vector<const runtime::NDArray*>& input_values = {},
                            const CompileOptions& options = {});

/// Writes `model` as one compiled model library at `path` (driver::export_model).
void export_model(const CompiledModel& model, const std::string& path,
                  const driver::BuildOptions& options = {});

/// JIT-compiles the kernels of `model` and returns a runnable model (the compiled model's
/// plan and weights are moved into it).
runtime::Model jit_model(CompiledModel model, const driver::BuildOptions& options = {});

/// The memory plan in words: arena (peak) and sum of intermediates, with the saving.
std::string describe_memory(const runtime::ModelPlan& plan);

/// The copies the plan saves in words: "2 concatenations and 7 slices in place".
std::string describe_views(const CompileStats& stats);

/// The layout changes in words: "13 layout changes (6 alone)", those alone being kernel
/// launches that only change layouts (the others join the kernels of their neighbours).
std::string describe_layout_changes(const CompileStats& stats);

}  // namespace tessel::compiler

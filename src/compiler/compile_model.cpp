// compile_graph: fusion, one kernel per distinct group, tensors placed in weights / arena.
#include "compiler/compile_model.h"

#include <chrono>
#include <cstring>
#include <map>
#include <ostream>
#include <sstream>

#include "codegen/backend.h"
#include "compiler/plan_builder.h"
#include "compiler/symbolic_batch.h"
#include "driver/export_model.h"
#include "passes/specialize_inputs.h"

namespace tessel::compiler {
namespace {

double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
      .count();
}

}  // namespace

CompiledModel compile_graph(const graph::Graph& graph, const CompileOptions& options,
                            const SymbolicBatch* batch) {
  CompiledModel model;
  model.plan.name = graph.name;
  model.plan.num_threads = options.num_threads;
  PlanBuilder(model, options, batch).build(graph);
  return model;
}

std::shared_ptr<const graph::Graph> optimize_graph(
    const graph::Graph& graph, const std::vector<graph::TensorType>& input_types,
    const std::vector<const runtime::NDArray*>& input_values, const CompileOptions& options) {
  auto start = std::chrono::steady_clock::now();
  graph::Graph specialised = passes::specialize_inputs(graph, input_types, input_values);
  auto optimised = std::make_shared<const graph::Graph>(passes::run_pipeline(
      specialised, passes::default_pipeline(options.build.target, options.passes),
      options.pipeline));
  if (options.progress)
    *options.progress << "graph passes: " << graph.nodes().size() << " -> "
                      << optimised->nodes().size() << " nodes in " << elapsed_ms(start) << " ms\n";
  return optimised;
}

CompiledModel compile_model(const graph::Graph& graph,
                            const std::vector<graph::TensorType>& input_types,
                            const std::vector<const runtime::NDArray*>& input_values,
                            const CompileOptions& options) {
  std::string symbol = batch_symbol_of(graph, input_types);
  if (symbol.empty()) {
    std::shared_ptr<const graph::Graph> optimised =
        optimize_graph(graph, input_types, input_values, options);
    CompiledModel model = compile_graph(*optimised, options);
    model.graph = std::move(optimised);
    return model;
  }
  // One sample's graph, and two samples' to see which values carry the batch.
  std::shared_ptr<const graph::Graph> one =
      optimize_graph(graph, at_batch(input_types, 1), input_values, options);
  CompileOptions quiet = options;
  quiet.progress = nullptr;
  quiet.pipeline.print_after_each = nullptr;
  quiet.pipeline.timing = nullptr;
  std::shared_ptr<const graph::Graph> two =
      optimize_graph(graph, at_batch(input_types, 2), input_values, quiet);
  SymbolicBatch batch = find_batched_values(*one, *two, symbol);
  CompiledModel model = compile_graph(*one, options, &batch);
  model.graph = std::move(one);
  return model;
}

void export_model(const CompiledModel& model, const std::string& path,
                  const driver::BuildOptions& options) {
  const auto* bytes = static_cast<const uint8_t*>(model.weights->data());
  std::vector<uint8_t> weights(bytes, bytes + model.plan.weights_bytes);
  driver::export_model(model.kernels, model.plan, weights, path, options);
}

runtime::Model jit_model(CompiledModel model, const driver::BuildOptions& options) {
  std::shared_ptr<codegen::LoadedModule> module =
      codegen::backend_for(options.target)
          .load_in_process(model.kernels, options.target, {options.llvm_ir_out, options.asm_out});
  struct KeepAlive {
    std::shared_ptr<codegen::LoadedModule> module;
    std::shared_ptr<runtime::NDArray> weights;
  };
  auto keep = std::make_shared<KeepAlive>(KeepAlive{module, model.weights});
  const void* weights = model.weights->data();
  return runtime::Model(std::move(model.plan), weights, keep,
                        [module](const std::string& name) { return module->get_function(name); });
}

std::string describe_layout_changes(const CompileStats& stats) {
  return std::to_string(stats.layout_changes) + " layout changes (" +
         std::to_string(stats.layout_kernels) + " alone)";
}

std::string describe_views(const CompileStats& stats) {
  return std::to_string(stats.concats_in_place) + " concatenations and " +
         std::to_string(stats.slices_in_place) + " slices in place";
}

std::string describe_memory(const runtime::ModelPlan& plan) {
  std::ostringstream text;
  double mib = 1024.0 * 1024.0;
  text.setf(std::ios::fixed);
  text.precision(2);
  int64_t arena = plan.arena_bytes + plan.batch_arena_bytes;
  text << "activation arena " << arena / mib << " MiB (planned peak";
  if (!plan.batch_symbol.empty())
    text << "; " << plan.batch_arena_bytes / mib << " MiB of it per sample of batch '"
         << plan.batch_symbol << "'";
  text << "), sum of intermediates " << plan.intermediate_bytes / mib << " MiB";
  if (plan.intermediate_bytes > 0) text << " (" << 100.0 * arena / plan.intermediate_bytes << " %)";
  text << ", weights " << plan.weights_bytes / mib << " MiB";
  return text.str();
}

}  // namespace tessel::compiler

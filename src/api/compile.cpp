// compile_file, export_library, load_model: the compile flow behind the command line and
// the Python package.
#include "api/compile.h"

#include <chrono>
#include <filesystem>
#include <memory>
#include <ostream>

#include "autotune/task.h"
#include "support/error.h"

namespace tessel::api {
namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

std::string model_name(const std::string& path) {
  std::filesystem::path p(path);
  if (p.filename() == "model.onnx" && p.has_parent_path()) {
    std::string dir = p.parent_path().filename().string();
    if (!dir.empty() && dir != ".") return dir;
  }
  return p.stem().string();
}

CompiledFile compile_file(const std::string& path, const CompileRequest& request) {
  auto start = std::chrono::steady_clock::now();
  graph::Graph graph = import_model(path, request.inputs);
  std::ostream* progress = request.options.progress;
  if (progress)
    *progress << "imported " << path << ": " << graph.nodes().size() << " nodes ("
              << static_cast<int>(ms_since(start)) << " ms)\n";
  compiler::CompileOptions options = request.options;
  auto applied = std::make_shared<std::vector<autotune::AppliedRecord>>();
  if (!request.records.empty()) {
    if (!std::filesystem::exists(request.records))
      TESSEL_USER_ERROR("records: no records database at '", request.records,
                        "' (tessel tune makes one)");
    options.choose_schedule = autotune::choose_from_records(
        std::make_shared<autotune::RecordDatabase>(request.records),
        autotune::target_key(options.build.target, options.num_threads), applied);
  }
  CompiledFile result{
      compiler::compile_model(graph, input_types(graph, request.inputs), {}, options), {}};
  result.applied = *applied;
  if (progress)
    *progress << "fused " << result.model.stats.nodes << " nodes into "
              << result.model.stats.kernel_launches << " kernel launches ("
              << result.model.stats.unique_kernels << " distinct kernels, "
              << compiler::describe_layout_changes(result.model.stats) << ", "
              << compiler::describe_views(result.model.stats) << "); "
              << compiler::describe_memory(result.model.plan) << " ("
              << static_cast<int>(ms_since(start)) << " ms)\n";
  return result;
}

void export_library(const compiler::CompiledModel& model, const std::string& path,
                    const CompileRequest& request) {
  compiler::export_model(model, path, request.options.build);
}

runtime::Model load_model(const std::string& path, const CompileRequest& request) {
  if (std::filesystem::path(path).extension() == ".so") return runtime::Model::load(path);
  CompiledFile compiled = compile_file(path, request);
  auto start = std::chrono::steady_clock::now();
  runtime::Model model = compiler::jit_model(std::move(compiled.model), request.options.build);
  if (request.options.progress)
    *request.options.progress << "generated code in " << static_cast<int>(ms_since(start))
                              << " ms\n";
  return model;
}

}  // namespace tessel::api

// `tessel compile`: an ONNX model -> one shared library with kernels, weights and plan.
#include <chrono>
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "model_source.h"
#include "support/error.h"

namespace tessel::cli {

int run_compile(const std::vector<std::string>& args) {
  std::string input, output;
  CompileFlags flags;
  for (size_t i = 0; i < args.size(); ++i) {
    if (flags.parse(args, i)) continue;
    if (args[i] == "-o" || args[i] == "--output") {
      if (i + 1 >= args.size()) TESSEL_USER_ERROR(args[i], " needs a file name");
      output = args[++i];
    } else if (!args[i].empty() && args[i][0] == '-') {
      TESSEL_USER_ERROR("compile: unknown option '", args[i], "'");
    } else if (input.empty()) {
      input = args[i];
    } else {
      TESSEL_USER_ERROR("compile: more than one model given ('", input, "', '", args[i], "')");
    }
  }
  if (input.empty() || output.empty())
    TESSEL_USER_ERROR(
        "usage: tessel compile <model.onnx> -o <model.so> [--target T] "
        "[--threads N] [--input-shape NAME=SHAPE]... [--no-fusion] [--no-blocked-layout] "
        "[--no-winograd]");
  auto start = std::chrono::steady_clock::now();
  compiler::CompiledModel model = compile_onnx(input, flags, true);
  std::cerr << "generating code for " << model.kernels.size() << " kernels...\n";
  api::export_library(model, output, flags.request);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "wrote " << output << " (" << std::filesystem::file_size(output) / (1024.0 * 1024.0)
            << " MiB): " << model.stats.kernel_launches << " kernel launches, "
            << model.kernels.size() << " kernels, "
            << compiler::describe_layout_changes(model.stats) << ", "
            << compiler::describe_views(model.stats) << "; "
            << compiler::describe_memory(model.plan) << "; compiled in " << seconds << " s\n";
  return 0;
}

}  // namespace tessel::cli

// Reading and compiling the model a command works on.
#include "model_source.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <iostream>

#include "autotune/apply_records.h"
#include "autotune/task.h"
#include "frontend/onnx_importer.h"
#include "passes/sequences.h"
#include "support/error.h"
#include "target/parse_target.h"

namespace tessel::cli {
namespace {

/// "1x3x224x224", a dimension also a name (a letter, then letters, digits or '_', no 'x')
/// that stays symbolic: "Nx3x224x224".
std::vector<graph::Dim> parse_shape(const std::string& text, const std::string& flag) {
  std::vector<graph::Dim> shape;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('x', start);
    if (end == std::string::npos) end = text.size();
    std::string part = text.substr(start, end - start);
    bool number = !part.empty() && part.size() <= 12 &&
                  part.find_first_not_of("0123456789") == std::string::npos;
    bool name = !part.empty() && std::isalpha(static_cast<unsigned char>(part[0])) &&
                std::all_of(part.begin(), part.end(), [](char c) {
                  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                });
    if (!number && !name)
      TESSEL_USER_ERROR(flag, ": '", text, "' is not a shape like 1x3x224x224 or Nx3x224x224");
    shape.push_back(number ? graph::Dim::of(std::stoll(part)) : graph::Dim::named(part));
    start = end + 1;
  }
  return shape;
}

}  // namespace

const std::string& value_of(const std::vector<std::string>& args, size_t& i) {
  if (i + 1 >= args.size()) TESSEL_USER_ERROR(args[i], " needs a value");
  return args[++i];
}

int parse_count(const std::string& flag, const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 6)
    TESSEL_USER_ERROR(flag, ": '", text, "' is not a non-negative integer");
  return std::stoi(text);
}

bool CompileFlags::parse(const std::vector<std::string>& args, size_t& i) {
  const std::string& flag = args[i];
  if (flag == "--input-shape") {
    const std::string& spec = value_of(args, i);
    size_t eq = spec.rfind('=');
    if (eq == std::string::npos || eq == 0)
      TESSEL_USER_ERROR("--input-shape: expected NAME=SHAPE (e.g. input=1x3x224x224), got '", spec,
                        "'");
    std::string name = spec.substr(0, eq), shape = spec.substr(eq + 1);
    if (shape == "none") {
      element_shapes.emplace_back(name, Elements{false, {}});
    } else if (!shape.empty() && shape.front() == '[') {
      if (shape.back() != ']')
        TESSEL_USER_ERROR("--input-shape: '", shape, "' opens a list of shapes it does not close");
      Elements elements{true, {}};
      std::string inside = shape.substr(1, shape.size() - 2);
      for (size_t start = 0; !inside.empty() && start <= inside.size();) {
        size_t end = std::min(inside.find(',', start), inside.size());
        elements.shapes.push_back(parse_shape(inside.substr(start, end - start), flag));
        start = end + 1;
      }
      element_shapes.emplace_back(name, std::move(elements));
    } else {
      input_shapes.emplace_back(name, parse_shape(shape, flag));
    }
  } else if (flag == "--no-fusion") {
    options.fusion.enabled = false;
  } else if (flag == "--no-blocked-layout") {
    options.passes.blocked_layout = false;
  } else if (flag == "--no-winograd") {
    options.passes.winograd = false;
  } else if (flag == "--target") {
    options.build.target = target::parse_target(value_of(args, i));
  } else if (flag == "--threads") {
    options.num_threads = parse_count(flag, value_of(args, i));
  } else if (flag == "--records") {
    records = value_of(args, i);
  } else if (flag == "--print-after") {
    print_after = value_of(args, i);
  } else {
    return false;
  }
  return true;
}

std::vector<graph::TensorType> input_types(const graph::Graph& graph, const CompileFlags& flags) {
  std::vector<graph::TensorType> types;
  for (const auto& [name, shape] : flags.input_shapes) {
    bool known = false;
    for (const graph::Value* in : graph.inputs()) known |= in->name == name;
    if (!known) TESSEL_USER_ERROR("--input-shape: the model has no input named '", name, "'");
  }
  for (const graph::Value* in : graph.inputs()) {
    graph::TensorType type = in->type;
    bool given = false;
    for (const auto& [name, shape] : flags.input_shapes) {
      if (name != in->name) continue;
      if (!type.dims.empty() && type.dims.size() != shape.size())
        TESSEL_USER_ERROR("--input-shape: input '", name, "' has rank ", type.dims.size(), " (",
                          type.to_string(), "), got ", shape.size(), " dimensions");
      type.dims = shape;
      given = true;
    }
    // Symbolic dimensions the model declares, unless given, compile for 1.
    for (graph::Dim& dim : type.dims)
      if (!given && !dim.is_static()) dim = graph::Dim::of(1);
    types.push_back(type);
  }
  return types;
}

graph::Graph import_model(const std::string& path, const CompileFlags& flags) {
  graph::Graph graph = frontend::import_onnx_file(path);
  bool structured = false;
  for (const graph::Value* in : graph.inputs()) structured |= in->kind != graph::ValueKind::Tensor;
  for (const auto& [name, elements] : flags.element_shapes) {
    const graph::Value* input = nullptr;
    for (const graph::Value* in : graph.inputs())
      if (in->name == name) input = in;
    if (!input) TESSEL_USER_ERROR("--input-shape: the model has no input named '", name, "'");
    if (input->kind == graph::ValueKind::Tensor)
      TESSEL_USER_ERROR("--input-shape: input '", name, "' is a tensor: give it one shape");
  }
  if (!structured) return graph;
  std::vector<passes::InputStructure> structures;
  for (const graph::Value* in : graph.inputs()) {
    passes::InputStructure structure;
    if (in->kind != graph::ValueKind::Tensor) {
      auto given = std::find_if(flags.element_shapes.begin(), flags.element_shapes.end(),
                                [&](const auto& e) { return e.first == in->name; });
      bool sequence =
          in->kind == graph::ValueKind::Sequence || in->kind == graph::ValueKind::OptionalSequence;
      if (given == flags.element_shapes.end())
        TESSEL_USER_ERROR("input '", in->name, "' is ", sequence ? "a " : "an ",
                          graph::value_kind_name(in->kind), ": give ",
                          sequence ? "its elements' shapes" : "its value's shape",
                          " with --input-shape ", in->name, sequence ? "=[2x3,5]" : "=[2x3]",
                          in->kind == graph::ValueKind::Sequence ? "" : " (or =none when empty)");
      structure.present = given->second.present;
      for (const std::vector<graph::Dim>& dims : given->second.shapes)
        structure.elements.push_back(graph::TensorType{in->type.dtype, dims});
    }
    structures.push_back(std::move(structure));
  }
  return passes::flatten_structured_inputs(graph, structures);
}

namespace {

void report_applied_records(const std::vector<autotune::AppliedRecord>& applied,
                            const std::string& path) {
  size_t tuned = 0;
  for (const autotune::AppliedRecord& a : applied) tuned += a.tuned;
  std::cerr << "records " << path << ": " << tuned << " of " << applied.size()
            << " kernels tuned\n";
  for (const autotune::AppliedRecord& a : applied) {
    if (a.tuned)
      std::cerr << "  tuned   " << a.task_key << " " << a.task_name << " (" << a.best_cost * 1e6
                << " us)\n";
    else if (!a.note.empty())
      std::cerr << "  default " << a.task_key << " " << a.task_name << ": " << a.note << "\n";
  }
}

}  // namespace

compiler::CompiledModel compile_onnx(const std::string& path, const CompileFlags& flags,
                                     bool verbose) {
  auto start = std::chrono::steady_clock::now();
  graph::Graph graph = import_model(path, flags);
  auto since = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  };
  if (verbose)
    std::cerr << "imported " << path << ": " << graph.nodes().size() << " nodes ("
              << static_cast<int>(since()) << " ms)\n";
  compiler::CompileOptions options = flags.options;
  if (verbose) options.progress = &std::cerr;
  if (!flags.print_after.empty()) {
    options.pipeline.print_after_each = &std::cout;
    if (flags.print_after != "all") options.pipeline.print_after = flags.print_after;
  }
  auto applied = std::make_shared<std::vector<autotune::AppliedRecord>>();
  if (!flags.records.empty() && !std::filesystem::exists(flags.records))
    TESSEL_USER_ERROR("--records: no records database at '", flags.records,
                      "' (tessel tune makes one)");
  if (!flags.records.empty())
    options.choose_schedule = autotune::choose_from_records(
        std::make_shared<autotune::RecordDatabase>(flags.records),
        autotune::target_key(options.build.target, options.num_threads), applied);
  compiler::CompiledModel model =
      compiler::compile_model(graph, input_types(graph, flags), {}, options);
  if (!flags.records.empty()) report_applied_records(*applied, flags.records);
  if (verbose)
    std::cerr << "fused " << model.stats.nodes << " nodes into " << model.stats.kernel_launches
              << " kernel launches (" << model.stats.unique_kernels << " distinct kernels, "
              << compiler::describe_layout_changes(model.stats) << ", "
              << compiler::describe_views(model.stats) << "); "
              << compiler::describe_memory(model.plan) << " (" << static_cast<int>(since())
              << " ms)\n";
  return model;
}

runtime::Model load_model(const std::string& path, const CompileFlags& flags, bool verbose) {
  if (std::filesystem::path(path).extension() == ".so") return runtime::Model::load(path);
  compiler::CompiledModel compiled = compile_onnx(path, flags, verbose);
  auto start = std::chrono::steady_clock::now();
  runtime::Model model = compiler::jit_model(std::move(compiled), flags.options.build);
  if (verbose)
    std::cerr << "generated code in "
              << static_cast<int>(std::chrono::duration<double, std::milli>(
                                      std::chrono::steady_clock::now() - start)
                                      .count())
              << " ms\n";
  return model;
}

std::string model_name(const std::string& path) {
  std::filesystem::path p(path);
  if (p.filename() == "model.onnx" && p.has_parent_path()) {
    std::string dir = p.parent_path().filename().string();
    if (!dir.empty() && dir != ".") return dir;
  }
  return p.stem().string();
}

}  // namespace tessel::cli

// Reading and compiling the model a command works on.
#include "model_source.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>

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
      request.inputs.elements.emplace_back(name, api::InputShapes::Elements{false, {}});
    } else if (!shape.empty() && shape.front() == '[') {
      if (shape.back() != ']')
        TESSEL_USER_ERROR("--input-shape: '", shape, "' opens a list of shapes it does not close");
      api::InputShapes::Elements elements{true, {}};
      std::string inside = shape.substr(1, shape.size() - 2);
      for (size_t start = 0; !inside.empty() && start <= inside.size();) {
        size_t end = std::min(inside.find(',', start), inside.size());
        elements.shapes.push_back(parse_shape(inside.substr(start, end - start), flag));
        start = end + 1;
      }
      request.inputs.elements.emplace_back(name, std::move(elements));
    } else {
      request.inputs.tensors.emplace_back(name, parse_shape(shape, flag));
    }
  } else if (flag == "--no-fusion") {
    request.options.fusion.enabled = false;
  } else if (flag == "--no-blocked-layout") {
    request.options.passes.blocked_layout = false;
  } else if (flag == "--no-winograd") {
    request.options.passes.winograd = false;
  } else if (flag == "--target") {
    request.options.build.target = target::parse_target(value_of(args, i));
  } else if (flag == "--threads") {
    request.options.num_threads = parse_count(flag, value_of(args, i));
  } else if (flag == "--records") {
    request.records = value_of(args, i);
  } else if (flag == "--print-after") {
    print_after = value_of(args, i);
  } else {
    return false;
  }
  return true;
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

/// The request with the command's printing: progress to stderr when `verbose`, the graph
/// after the passes --print-after names.
api::CompileRequest printing_request(const CompileFlags& flags, bool verbose) {
  api::CompileRequest request = flags.request;
  if (verbose) request.options.progress = &std::cerr;
  if (!flags.print_after.empty()) {
    request.options.pipeline.print_after_each = &std::cout;
    if (flags.print_after != "all") request.options.pipeline.print_after = flags.print_after;
  }
  return request;
}

}  // namespace

compiler::CompiledModel compile_onnx(const std::string& path, const CompileFlags& flags,
                                     bool verbose) {
  api::CompiledFile compiled = api::compile_file(path, printing_request(flags, verbose));
  if (!flags.request.records.empty())
    report_applied_records(compiled.applied, flags.request.records);
  return std::move(compiled.model);
}

runtime::Model load_model(const std::string& path, const CompileFlags& flags, bool verbose) {
  return api::load_model(path, printing_request(flags, verbose));
}

}  // namespace tessel::cli

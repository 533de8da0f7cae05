// `tessel run`: runs a compiled model library on inputs read from .npy or ONNX .pb files,
// prints a summary of each output and optionally writes the outputs as .npy files.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "commands.h"
#include "npy.h"
#include "runtime/error.h"
#include "runtime/model.h"
#include "support/error.h"

namespace tessel::cli {
namespace {

struct RunOptions {
  std::string model_path;
  /// Each --input: a name (empty when given by position) and a file.
  std::vector<std::pair<std::string, std::string>> inputs;
  std::string output_dir;
  int threads = 0;
  bool profile = false;
};

RunOptions parse_options(const std::vector<std::string>& args) {
  RunOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) TESSEL_USER_ERROR("run: ", a, " needs a value");
      return args[++i];
    };
    if (a == "--input") {
      const std::string& v = value();
      size_t eq = v.find('=');
      if (eq == std::string::npos)
        options.inputs.emplace_back("", v);
      else
        options.inputs.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (a == "--output-dir") {
      options.output_dir = value();
    } else if (a == "--threads") {
      const std::string& v = value();
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 4)
        TESSEL_USER_ERROR("run: --threads takes a count, got '", v, "'");
      options.threads = std::stoi(v);
    } else if (a == "--profile") {
      options.profile = true;
    } else if (a.rfind("--", 0) == 0) {
      TESSEL_USER_ERROR("run: unknown option ", a);
    } else if (options.model_path.empty()) {
      options.model_path = a;
    } else {
      TESSEL_USER_ERROR("run: unexpected argument '", a, "' (inputs are given with --input)");
    }
  }
  if (options.model_path.empty())
    TESSEL_USER_ERROR("run: no model given (usage: tessel run model.so --input name=file.npy)");
  return options;
}

std::string input_names(const runtime::Model& model) {
  std::string names;
  for (size_t i = 0; i < model.num_inputs(); ++i) names += (i ? ", " : "") + model.input(i).name;
  return names;
}

/// The model's inputs, in order, read from the files the options name.
std::vector<runtime::NDArray> read_inputs(const runtime::Model& model, const RunOptions& options) {
  std::vector<std::optional<runtime::NDArray>> inputs(model.num_inputs());
  size_t next_positional = 0;
  for (const auto& [name, file] : options.inputs) {
    size_t index = 0;
    if (name.empty()) {
      index = next_positional++;
      if (index >= inputs.size())
        TESSEL_USER_ERROR("run: too many inputs: the model takes ", inputs.size(), " (",
                          input_names(model), ")");
    } else {
      while (index < inputs.size() && model.input(index).name != name) ++index;
      if (index == inputs.size())
        TESSEL_USER_ERROR("run: the model has no input '", name,
                          "' (its inputs: ", input_names(model), ")");
    }
    if (inputs[index])
      TESSEL_USER_ERROR("run: input ", index, " ('", model.input(index).name, "') is given twice");
    inputs[index] = load_tensor_any(file);
  }
  std::vector<runtime::NDArray> result;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i])
      TESSEL_USER_ERROR("run: missing input ", i, " ('", model.input(i).name,
                        "'); give it with --input ", model.input(i).name, "=FILE.npy");
    result.push_back(std::move(*inputs[i]));
  }
  return result;
}

/// Element k of `a` as a double (enough to print it).
double element(const runtime::NDArray& a, int64_t k) {
  const char* p = static_cast<const char*>(a.data()) + k * a.dtype().bytes();
  auto load = [&]<class T>(T) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return static_cast<double>(v);
  };
  runtime::DType t = a.dtype();
  switch (t.code) {
    case runtime::DTypeCode::Float:
      return t.bits == 16 ? load(_Float16{}) : t.bits == 32 ? load(float{}) : load(double{});
    case runtime::DTypeCode::BFloat: {
      uint16_t bits;
      std::memcpy(&bits, p, sizeof bits);
      uint32_t word = uint32_t{bits} << 16;
      float f;
      std::memcpy(&f, &word, sizeof f);
      return f;
    }
    case runtime::DTypeCode::Int:
      return t.bits == 8    ? load(int8_t{})
             : t.bits == 16 ? load(int16_t{})
             : t.bits == 32 ? load(int32_t{})
                            : load(int64_t{});
    case runtime::DTypeCode::UInt:
      return t.bits <= 8    ? load(uint8_t{})
             : t.bits == 16 ? load(uint16_t{})
             : t.bits == 32 ? load(uint32_t{})
                            : load(uint64_t{});
    case runtime::DTypeCode::String:
      break;
  }
  TESSEL_INTERNAL_ERROR("element(): ", t.to_string(), " has no numeric value");
}

std::string summary(const std::string& name, const runtime::NDArray& a) {
  std::string s = name + ": " + a.dtype().to_string() + "[";
  for (int i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape()[i]);
  s += "] =";
  const int64_t shown = 8;
  for (int64_t k = 0; k < std::min(a.size(), shown); ++k) {
    if (a.dtype().is_string()) {
      s += " \"" + std::string(a.string_at(k)) + "\"";
      continue;
    }
    char value[32];
    std::snprintf(value, sizeof value, " %.6g", element(a, k));
    s += value;
  }
  if (a.size() > shown) s += " ...";
  return s;
}

/// A file name for output `name`: letters, digits, '_', '-' and '.' kept (not leading '.'),
/// anything else '_'; unique among `used`.
std::string file_name_for(const std::string& name, size_t index, std::set<std::string>& used) {
  std::string s;
  for (char c : name)
    s += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ? c : '_';
  if (s.empty() || s[0] == '.') s = "output_" + std::to_string(index) + s;
  if (used.count(s)) s += "_" + std::to_string(index);
  used.insert(s);
  return s + ".npy";
}

void print_profile(const runtime::Model& model) {
  const std::vector<double>& times = model.step_times_ms();
  double total = 0;
  for (size_t k = 0; k < times.size(); ++k) {
    const runtime::PlanStep& step = model.plan().steps[k];
    std::printf("  step %3zu  %9.3f ms  %s (%s)\n", k, times[k], step.label.c_str(),
                step.kind == runtime::StepKind::Kernel ? step.kernel.c_str()
                                                       : runtime::step_kind_name(step.kind));
    total += times[k];
  }
  std::printf("  total     %9.3f ms over %zu steps\n", total, times.size());
}

}  // namespace

int run_model(const std::vector<std::string>& args) {
  RunOptions options = parse_options(args);
  try {
    runtime::Model model = runtime::Model::load(options.model_path);
    model.set_num_threads(options.threads);
    model.set_profiling(options.profile);
    std::vector<runtime::NDArray> inputs = read_inputs(model, options);
    std::vector<const runtime::NDArray*> pointers;
    for (const runtime::NDArray& a : inputs) pointers.push_back(&a);
    std::vector<runtime::NDArray> outputs = model.run(pointers);

    if (!options.output_dir.empty()) std::filesystem::create_directories(options.output_dir);
    std::set<std::string> used;
    for (size_t i = 0; i < outputs.size(); ++i) {
      const std::string& name = model.output(i).name;
      std::cout << summary(name, outputs[i]) << "\n";
      if (options.output_dir.empty()) continue;
      std::filesystem::path file =
          std::filesystem::path(options.output_dir) / file_name_for(name, i, used);
      write_npy(outputs[i], file.string());
    }
    std::cout.flush();
    if (options.profile) print_profile(model);
    return 0;
  } catch (const runtime::Error& e) {
    std::cerr << "tessel run: error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace tessel::cli

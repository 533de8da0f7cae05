// Running one ONNX backend test case and comparing its outputs with the expected ones.
#include "onnx_case.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

#include "compiler/graph_executor.h"
#include "frontend/onnx_importer.h"
#include "passes/sequences.h"
#include "runtime/ndarray_element.h"
#include "support/error.h"

namespace tessel::cli {

namespace fs = std::filesystem;

namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
  std::ostringstream os;
  os << "[";
  for (size_t d = 0; d < shape.size(); ++d) os << (d ? ", " : "") << shape[d];
  os << "]";
  return os.str();
}

/// `stored` as the case means it: ONNX 1.12's test data stores bfloat16 tensors as their
/// uint16 bit patterns, so a uint16 tensor where bfloat16 is `wanted` is read as those bits.
runtime::NDArray as_stored_for(runtime::NDArray stored, runtime::DType wanted) {
  if (wanted != runtime::DType::BFloat(16) || stored.dtype() != runtime::DType::UInt(16))
    return stored;
  runtime::NDArray bits(stored.shape(), wanted);
  std::memcpy(bits.data(), stored.data(), static_cast<size_t>(stored.nbytes()));
  return bits;
}

/// Empty when `got` matches `expected`, else a description of the worst mismatch.
std::string compare(const runtime::NDArray& got, const runtime::NDArray& expected,
                    const CaseOptions& tol) {
  if (got.dtype() != expected.dtype())
    return "dtype " + got.dtype().to_string() + ", expected " + expected.dtype().to_string();
  if (got.shape() != expected.shape())
    return "shape " + shape_text(got.shape()) + ", expected " + shape_text(expected.shape());
  if (got.dtype().is_string()) {
    int64_t mismatches = 0, first = -1;
    for (int64_t k = 0; k < got.size(); ++k)
      if (got.string_at(k) != expected.string_at(k) && mismatches++ == 0) first = k;
    if (mismatches == 0) return "";
    return std::to_string(mismatches) + " of " + std::to_string(got.size()) +
           " strings differ; the first at flat index " + std::to_string(first) + ": got '" +
           std::string(got.string_at(first)) + "', expected '" +
           std::string(expected.string_at(first)) + "'";
  }
  bool exact = got.dtype().code != runtime::DTypeCode::Float;
  double worst_excess = 0;
  int64_t worst = -1, mismatches = 0;
  for (int64_t k = 0; k < got.size(); ++k) {
    double g = runtime::element_as_double(got, k), e = runtime::element_as_double(expected, k);
    if (std::isnan(g) && std::isnan(e)) continue;
    if (g == e) continue;
    double allowed = exact ? 0 : tol.atol + tol.rtol * std::fabs(e);
    double error = std::fabs(g - e);
    if (!(error <= allowed)) {
      ++mismatches;
      double excess = std::isnan(error) ? INFINITY : error - allowed;
      if (worst < 0 || excess > worst_excess) {
        worst_excess = excess;
        worst = k;
      }
    }
  }
  if (worst < 0) return "";
  std::ostringstream os;
  os.precision(9);
  os << mismatches << " of " << got.size() << " elements differ; worst at flat index " << worst
     << ": got " << runtime::element_as_double(got, worst) << ", expected "
     << runtime::element_as_double(expected, worst);
  return os.str();
}

std::vector<std::string> numbered_files(const fs::path& dir, const std::string& prefix) {
  std::vector<std::string> files;
  for (int k = 0;; ++k) {
    fs::path file = dir / (prefix + std::to_string(k) + ".pb");
    if (!fs::exists(file)) break;
    files.push_back(file.string());
  }
  return files;
}

}  // namespace

std::vector<std::string> find_onnx_cases(const std::string& root) {
  std::vector<std::string> cases;
  if (fs::exists(fs::path(root) / "model.onnx")) return {root};
  if (!fs::is_directory(root)) TESSEL_USER_ERROR("'", root, "' is not a folder");
  for (const auto& entry : fs::recursive_directory_iterator(root))
    if (entry.is_regular_file() && entry.path().filename() == "model.onnx")
      cases.push_back(entry.path().parent_path().string());
  std::sort(cases.begin(), cases.end());
  return cases;
}

CaseResult run_onnx_case(const std::string& dir, const CaseOptions& options) {
  CaseResult result;
  try {
    graph::Graph model = frontend::import_onnx_file((fs::path(dir) / "model.onnx").string());
    std::set<std::string> ops;
    for (const auto& node : model.nodes()) ops.insert(node->op_type);
    result.ops.assign(ops.begin(), ops.end());
    compiler::CompileOptions compile;
    compile.fusion.enabled = options.fusion;
    compile.passes.blocked_layout = options.blocked_layout;
    compile.passes.winograd = options.winograd;
    compile.build.target = options.target;
    compiler::Backend backend =
        options.through_library ? compiler::Backend::SharedLibrary : compiler::Backend::Jit;
    bool structured = false;
    for (const graph::Value* in : model.inputs())
      structured |= in->kind != graph::ValueKind::Tensor;
    // A model with sequence or optional inputs is compiled for each data set's structure.
    std::optional<compiler::GraphExecutor> tensor_executor;
    if (!structured) tensor_executor.emplace(model, compile, backend, options.symbolic_batch);
    std::vector<fs::path> data_sets;
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0)
        data_sets.push_back(entry.path());
    std::sort(data_sets.begin(), data_sets.end());
    if (data_sets.empty()) TESSEL_USER_ERROR("no test_data_set_* folder");
    auto kind_of = [](const std::vector<graph::Value*>& values, size_t i) {
      return i < values.size() ? values[i]->kind : graph::ValueKind::Tensor;
    };
    for (const fs::path& set : data_sets) {
      // Each input as its elements (one for a tensor), and the structure they make.
      std::vector<runtime::NDArray> inputs;
      std::vector<passes::InputStructure> structures;
      for (const std::string& file : numbered_files(set, "input_")) {
        size_t i = structures.size();
        frontend::DataValue value = frontend::load_value_file(file, kind_of(model.inputs(), i));
        passes::InputStructure structure{value.present, {}};
        for (runtime::NDArray& array : value.tensors) {
          runtime::NDArray stored =
              i < model.inputs().size()
                  ? as_stored_for(std::move(array),
                                  graph::to_runtime_dtype(model.inputs()[i]->type.dtype))
                  : std::move(array);
          structure.elements.push_back(
              graph::TensorType::of(graph::to_data_type(stored.dtype()), stored.shape()));
          inputs.push_back(std::move(stored));
        }
        structures.push_back(std::move(structure));
      }
      std::vector<const runtime::NDArray*> input_ptrs;
      for (const auto& array : inputs) input_ptrs.push_back(&array);
      std::optional<graph::Graph> flattened;
      std::optional<compiler::GraphExecutor> structured_executor;
      if (structured) {
        flattened.emplace(passes::flatten_structured_inputs(model, structures));
        structured_executor.emplace(*flattened, compile, backend, false);
      }
      compiler::GraphExecutor& executor = structured ? *structured_executor : *tensor_executor;
      std::vector<runtime::NDArray> outputs = executor.run(input_ptrs);
      if (options.symbolic_batch && executor.compilations() > 1)
        throw std::runtime_error(set.filename().string() +
                                 " needed a model of its own: the batch did not stay symbolic");
      // Each expected output as its elements, compared with the compiled model's outputs
      // in order (a sequence or optional output is its elements' outputs).
      std::vector<std::string> expected_files = numbered_files(set, "output_");
      if (expected_files.size() != model.outputs().size())
        throw std::runtime_error("the model has " + std::to_string(model.outputs().size()) +
                                 " outputs, the data set " + std::to_string(expected_files.size()));
      size_t next = 0;
      for (size_t k = 0; k < expected_files.size(); ++k) {
        frontend::DataValue expected =
            frontend::load_value_file(expected_files[k], kind_of(model.outputs(), k));
        for (size_t e = 0; e < expected.tensors.size(); ++e, ++next) {
          std::string where = set.filename().string() + " output " + std::to_string(k) + " '" +
                              model.outputs()[k]->name + "'" +
                              (model.outputs()[k]->kind == graph::ValueKind::Tensor
                                   ? std::string()
                                   : " element " + std::to_string(e));
          if (next >= outputs.size()) throw std::runtime_error(where + ": not computed");
          runtime::NDArray want =
              as_stored_for(std::move(expected.tensors[e]), outputs[next].dtype());
          std::string mismatch = compare(outputs[next], want, options);
          if (!mismatch.empty()) throw std::runtime_error(where + ": " + mismatch);
        }
      }
      if (next != outputs.size())
        throw std::runtime_error("the model computed " + std::to_string(outputs.size()) +
                                 " output tensors, the data set holds " + std::to_string(next));
    }
    result.status = CaseStatus::Pass;
  } catch (const CompileError& e) {
    result.status = CaseStatus::Skip;
    result.message = e.what();
  } catch (const std::exception& e) {
    result.status = CaseStatus::Fail;
    result.message = e.what();
  }
  return result;
}

}  // namespace tessel::cli

// Running one ONNX backend test case and comparing its outputs with the expected ones.
#include "onnx_case.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>

#include "compiler/graph_executor.h"
#include "frontend/onnx_importer.h"
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
     << ": got " << runtime::element_as_double(got, worst) << ", expected " << runtime::element_as_double(expected, worst);
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
    compiler::GraphExecutor executor(
        model, compile,
        options.through_library ? compiler::Backend::SharedLibrary : compiler::Backend::Jit,
        options.symbolic_batch);
    std::vector<fs::path> data_sets;
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0)
        data_sets.push_back(entry.path());
    std::sort(data_sets.begin(), data_sets.end());
    if (data_sets.empty()) TESSEL_USER_ERROR("no test_data_set_* folder");
    for (const fs::path& set : data_sets) {
      std::vector<runtime::NDArray> inputs;
      for (const std::string& file : numbered_files(set, "input_")) {
        size_t i = inputs.size();
        runtime::NDArray stored = frontend::load_tensor_file(file);
        inputs.push_back(i < model.inputs().size()
                             ? as_stored_for(std::move(stored),
                                             graph::to_runtime_dtype(model.inputs()[i]->type.dtype))
                             : std::move(stored));
      }
      std::vector<const runtime::NDArray*> input_ptrs;
      for (const auto& array : inputs) input_ptrs.push_back(&array);
      std::vector<runtime::NDArray> outputs = executor.run(input_ptrs);
      if (options.symbolic_batch && executor.compilations() > 1)
        throw std::runtime_error(set.filename().string() +
                                 " needed a model of its own: the batch did not stay symbolic");
      std::vector<std::string> expected_files = numbered_files(set, "output_");
      if (expected_files.size() != outputs.size())
        throw std::runtime_error("the model has " + std::to_string(outputs.size()) +
                                 " outputs, the data set " + std::to_string(expected_files.size()));
      for (size_t k = 0; k < outputs.size(); ++k) {
        runtime::NDArray expected =
            as_stored_for(frontend::load_tensor_file(expected_files[k]), outputs[k].dtype());
        std::string mismatch = compare(outputs[k], expected, options);
        if (!mismatch.empty())
          throw std::runtime_error(set.filename().string() + " output " + std::to_string(k) +
                                   " '" + model.outputs()[k]->name + "': " + mismatch);
      }
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

// One ONNX backend test case: a folder with model.onnx and test_data_set_*/{input,output}_N.pb.
#pragma once

#include <string>
#include <vector>

namespace tessel::cli {

enum class CaseStatus { Pass, Fail, Skip };

struct CaseResult {
  CaseStatus status = CaseStatus::Fail;
  /// Why a case failed or was skipped (the worst mismatch, the unsupported operator, ...).
  std::string message;
  /// The operator types the model uses, sorted and unique.
  std::vector<std::string> ops;
};

/// ONNX's default backend-test tolerance.
struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-7;
};

/// Imports, compiles and runs the case in `dir` on every data set and compares the outputs.
/// A CompileError (unsupported operator, dtype, ...) makes the case Skip; a mismatch or any
/// other exception makes it Fail. Never throws.
CaseResult run_onnx_case(const std::string& dir, const Tolerance& tolerance);

/// The case folders under `root`: `root` itself when it holds model.onnx, else every folder
/// below it that does, sorted by path.
std::vector<std::string> find_onnx_cases(const std::string& root);

}  // namespace tessel::cli

// One ONNX backend test case: a folder with model.onnx and test_data_set_*/{input,output}_N.pb.
#pragma once

#include <string>
#include <vector>

#include "target/host.h"

namespace tessel::cli {

enum class CaseStatus { Pass, Fail, Skip };

struct CaseResult {
  CaseStatus status = CaseStatus::Fail;
  /// Why a case failed or was skipped (the worst mismatch, the unsupported operator, ...).
  std::string message;
  /// The operator types the model uses, sorted and unique.
  std::vector<std::string> ops;
};

/// How a case is run and compared.
struct CaseOptions {
  /// ONNX's default backend-test tolerance.
  double rtol = 1e-3;
  double atol = 1e-7;
  /// Run through a compiled model library (as `tessel compile` writes it) instead of JIT.
  bool through_library = false;
  bool fusion = true;
  /// Convolutions in the blocked layout NCHW[x]c (passes::convert_conv_layout).
  bool blocked_layout = true;
  /// Winograd convolutions where the layout pass chooses them.
  bool winograd = true;
  /// Inputs whose declared leading dimension is a symbol keep it: one compiled model runs
  /// the data sets of every batch size (a case compiled more than once fails).
  bool symbolic_batch = false;
  /// The machine the kernels are compiled for; it must run here.
  target::Target target = target::host();
};

/// Imports, compiles and runs the case in `dir` on every data set and compares the outputs.
/// A CompileError (unsupported operator, dtype, ...) makes the case Skip; a mismatch or any
/// other exception makes it Fail. Never throws.
CaseResult run_onnx_case(const std::string& dir, const CaseOptions& options);

/// The case folders under `root`: `root` itself when it holds model.onnx, else every folder
/// below it that does, sorted by path.
std::vector<std::string> find_onnx_cases(const std::string& root);

}  // namespace tessel::cli

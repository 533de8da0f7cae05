// The subcommands of the `tessel` program; each returns the process exit code.
#pragma once

#include <string>
#include <vector>

namespace tessel::cli {

/// `tessel demo`: builds matmul, conv2d and softmax, prints their IR, runs them, checks them
/// against naive references and prints GFLOP/s.
int run_demo(const std::vector<std::string>& args);

/// `tessel test-onnx`: runs ONNX backend test cases and reports pass / fail / skip per case.
int run_test_onnx(const std::vector<std::string>& args);

/// `tessel list-ops`: prints the supported operators, their opsets and pattern kinds.
int run_list_ops(const std::vector<std::string>& args);

}  // namespace tessel::cli

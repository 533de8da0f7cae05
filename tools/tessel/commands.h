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

/// `tessel run`: runs a compiled model library on .npy / .pb inputs and prints (and
/// optionally writes) its outputs.
int run_model(const std::vector<std::string>& args);

/// `tessel compile`: compiles an ONNX model into one shared library (kernels, weights, plan).
int run_compile(const std::vector<std::string>& args);

/// `tessel inspect`: prints the graph after each pass, the fused groups and the memory plan.
int run_inspect(const std::vector<std::string>& args);

/// `tessel bench`: median and p90 latency of a model and each kernel's share of the time.
int run_bench(const std::vector<std::string>& args);

/// `tessel tune`: tunes a model's kernels into a records database; lists its tasks.
int run_tune(const std::vector<std::string>& args);

}  // namespace tessel::cli

// The subcommands of the `tessel` program; each returns the process exit code.
#pragma once

#include <string>
#include <vector>

namespace tessel::cli {

/// `tessel demo`: builds matmul, conv2d and softmax, prints their IR, runs them, checks them
/// against naive references and prints GFLOP/s.
int run_demo(const std::vector<std::string>& args);

}  // namespace tessel::cli

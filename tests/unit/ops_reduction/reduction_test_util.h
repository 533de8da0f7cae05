// Helpers of the reduction-family tests on top of the shared operator test helpers: values as
// doubles, small random integers with many ties, and a one-node run that also returns the
// optimised loop IR of the kernel (to check the row-parallel schedules).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/printer.h"
#include "unit/ops_test_util.h"

namespace tessel::ops::testing {

using Values = std::vector<double>;

/// `n` integers in [lo, hi] (many ties when the range is small), reproducible from `seed`.
inline Values random_ints(int64_t n, uint64_t seed, int lo, int hi) {
  std::vector<int64_t> ints = random_values<int64_t>({n}, seed, lo, hi + 1.0);
  return Values(ints.begin(), ints.end());
}

/// The outputs of a one-node graph calling `op_type` (see add_op) on `inputs`, and the
/// optimised loop IR of its kernel.
struct InspectedRun {
  std::vector<NDArray> outputs;
  std::string ir;
};

inline InspectedRun run_and_inspect(const std::string& op_type,
                                    const std::vector<const NDArray*>& inputs,
                                    Attributes attributes = {}, int opset = 17) {
  graph::Graph g;
  graph::Node* node = add_op(g, op_type, inputs, std::move(attributes), opset);
  std::vector<graph::TensorType> types;
  for (const graph::Value* v : node->inputs) types.push_back(v ? v->type : graph::TensorType{});
  executor::NodeKernel k = executor::compile_node(*node, types, inputs);
  InspectedRun result{executor::run_compiled(*node, k, inputs), ""};
  if (k.kernel) result.ir = ir::to_string(k.kernel->optimized());
  return result;
}

}  // namespace tessel::ops::testing

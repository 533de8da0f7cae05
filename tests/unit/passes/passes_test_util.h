// Helpers shared by the graph pass tests: a terse way to build graphs, and the numeric check
// every rewrite test makes: the graph before and after, run by ReferenceExecutor on the same
// random inputs, give the same outputs.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "executor/reference_executor.h"
#include "graph/graph.h"
#include "passes/fold_constants.h"
#include "passes/infer_types.h"
#include "passes/rewrite.h"
#include "passes/rules/rules.h"
#include "runtime/ndarray.h"
#include "support/error.h"

namespace tessel::passes::testing {

using graph::Attribute;
using Shape = std::vector<int64_t>;
using Attributes = std::map<std::string, Attribute>;

inline const ir::DataType kF32 = ir::DataType::Float(32);
inline const ir::DataType kI64 = ir::DataType::Int(64);

/// Deterministic pseudo-random numbers in [low, high).
inline std::vector<double> random_numbers(int64_t count, uint64_t seed, double low = -1,
                                          double high = 1) {
  std::vector<double> values;
  uint64_t state = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (int64_t k = 0; k < count; ++k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    values.push_back(low + (high - low) * static_cast<double>(state >> 11) / 0x1p53);
  }
  return values;
}

/// An array of `dtype` (float32, float64, int64 or bool) holding `values`.
inline runtime::NDArray array_of(ir::DataType dtype, const Shape& shape,
                                 const std::vector<double>& values) {
  runtime::NDArray a(shape, graph::to_runtime_dtype(dtype));
  EXPECT_EQ(a.size(), static_cast<int64_t>(values.size())) << "test data of the wrong size";
  for (int64_t k = 0; k < a.size(); ++k) {
    double v = values[static_cast<size_t>(k)];
    if (dtype == kI64)
      a.data_as<int64_t>()[k] = static_cast<int64_t>(v);
    else if (dtype.is_bool())
      a.data_as<uint8_t>()[k] = v != 0;
    else if (dtype.bits == 64)
      a.data_as<double>()[k] = v;
    else
      a.data_as<float>()[k] = static_cast<float>(v);
  }
  return a;
}

/// Element `k` of a float32, float64 or int64 array.
inline double element(const runtime::NDArray& a, int64_t k) {
  if (a.dtype() == runtime::DType::Int(64)) return static_cast<double>(a.data_as<int64_t>()[k]);
  if (a.dtype() == runtime::DType::Float(64)) return a.data_as<double>()[k];
  return a.data_as<float>()[k];
}

/// Builds a test graph: inputs, constants, one-output nodes named after their output.
class TestGraph {
 public:
  explicit TestGraph(std::string name = "g") { g.name = std::move(name); }

  graph::Value* input(const std::string& name, const Shape& shape, ir::DataType dtype = kF32) {
    graph::Value* v = g.add_value(name, graph::TensorType::of(dtype, shape));
    g.add_input(v);
    return v;
  }
  graph::Value* constant(const std::string& name, ir::DataType dtype, const Shape& shape,
                         const std::vector<double>& values) {
    return g.add_constant(name,
                          std::make_shared<const runtime::NDArray>(array_of(dtype, shape, values)));
  }
  /// A float32 constant of random values in [low, high).
  graph::Value* random(const std::string& name, const Shape& shape, double low = -1,
                       double high = 1) {
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    return constant(name, kF32, shape, random_numbers(count, ++seed_, low, high));
  }
  graph::Value* scalar(const std::string& name, double v) { return constant(name, kF32, {}, {v}); }
  graph::Value* ints(const std::string& name, const std::vector<int64_t>& v) {
    return constant(name, kI64, {static_cast<int64_t>(v.size())},
                    std::vector<double>(v.begin(), v.end()));
  }
  /// A node `op_type` named `out` with one output named `out` (types left to inference).
  graph::Value* op(const std::string& op_type, const std::string& out,
                   std::vector<graph::Value*> inputs, Attributes attributes = {}, int opset = 13) {
    return ops(op_type, {out}, std::move(inputs), std::move(attributes), opset)[0];
  }
  /// A node with several outputs ("" for an omitted one).
  std::vector<graph::Value*> ops(const std::string& op_type, const std::vector<std::string>& outs,
                                 std::vector<graph::Value*> inputs, Attributes attributes = {},
                                 int opset = 13) {
    graph::Node node;
    node.name = outs[0];
    node.op_type = op_type;
    node.opset = opset;
    node.attributes = std::move(attributes);
    node.inputs = std::move(inputs);
    for (const std::string& out : outs)
      node.outputs.push_back(out.empty() ? nullptr : g.add_value(out, {}));
    return g.add_node(std::move(node))->outputs;
  }
  void output(graph::Value* v) { g.add_output(v); }

  graph::Graph g;

 private:
  uint64_t seed_ = 100;
};

/// Random inputs for the (static) input types of `g`.
inline std::vector<runtime::NDArray> random_inputs(const graph::Graph& g, uint64_t seed = 7) {
  std::vector<runtime::NDArray> inputs;
  for (const graph::Value* in : g.inputs())
    inputs.push_back(array_of(in->type.dtype, in->type.shape(),
                              random_numbers(in->type.num_elements(), seed++, -2, 2)));
  return inputs;
}

/// The outputs of `g` run by ReferenceExecutor on `inputs`.
inline std::vector<runtime::NDArray> run_graph(const graph::Graph& g,
                                               const std::vector<runtime::NDArray>& inputs) {
  executor::ReferenceExecutor executor(g);
  std::vector<const runtime::NDArray*> pointers;
  for (const runtime::NDArray& a : inputs) pointers.push_back(&a);
  return executor.run(pointers);
}

/// Expects `after` to compute what `before` computes on random inputs, within `rtol`
/// (relative; absolute near zero).
inline void expect_same_results(const graph::Graph& before, const graph::Graph& after,
                                double rtol = 1e-4) {
  std::vector<runtime::NDArray> inputs = random_inputs(before);
  std::vector<runtime::NDArray> expected = run_graph(before, inputs);
  std::vector<runtime::NDArray> actual = run_graph(after, inputs);
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t o = 0; o < actual.size(); ++o) {
    ASSERT_EQ(actual[o].shape(), expected[o].shape()) << "output " << o;
    ASSERT_EQ(actual[o].dtype(), expected[o].dtype()) << "output " << o;
    int failures = 0;
    for (int64_t k = 0; k < actual[o].size() && failures < 5; ++k) {
      double a = element(actual[o], k), e = element(expected[o], k);
      if (std::fabs(a - e) <= rtol * std::max(1.0, std::fabs(e))) continue;
      ++failures;
      ADD_FAILURE() << "output " << o << " element " << k << ": " << a << ", expected " << e;
    }
  }
}

/// `g` typed, rewritten by `rules` (default_rules() when empty) and with the new weights
/// folded: what a rewrite test shows.
inline graph::Graph rewrite_and_fold(const graph::Graph& g, std::vector<RewriteRule> rules = {}) {
  if (rules.empty()) rules = default_rules();
  return fold_constants(rewrite(fold_constants(g), rules));
}

/// Expects the default rules to turn `g` (shown typed as `before`) into `after` (folded),
/// computing the same results.
inline void expect_rewrite(const graph::Graph& g, const std::string& before,
                           const std::string& after) {
  EXPECT_EQ(graph::to_string(infer_types(g)), before);
  graph::Graph rewritten = rewrite_and_fold(g);
  EXPECT_EQ(graph::to_string(rewritten), after);
  expect_same_results(g, rewritten);
}

/// The message of the CompileError `f` throws ("(no CompileError)" when it throws none).
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const CompileError& e) {
    return e.what();
  }
  return "(no CompileError)";
}

}  // namespace tessel::passes::testing

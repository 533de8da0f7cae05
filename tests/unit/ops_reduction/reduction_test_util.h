// Helpers of the reduction-family tests: running one ONNX node through the executor, arrays
// made from and read back as doubles, positions in row-major shapes, and comparisons.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "executor/node_kernel.h"
#include "graph/graph.h"
#include "ir/printer.h"
#include "runtime/ndarray.h"

namespace tessel::reduction_test {

using graph::Attribute;
using runtime::DType;
using runtime::NDArray;
using Shape = std::vector<int64_t>;
using Values = std::vector<double>;
using Attrs = std::map<std::string, Attribute>;

inline int64_t count(const Shape& shape) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

/// The row-major position of element `flat` of `shape`.
inline Shape unravel(int64_t flat, const Shape& shape) {
  Shape index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}

inline int64_t ravel(const Shape& index, const Shape& shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + index[d];
  return flat;
}

template <class T>
void store_as(NDArray& a, const Values& values) {
  T* data = a.data_as<T>();
  for (size_t i = 0; i < values.size(); ++i) data[i] = static_cast<T>(values[i]);
}

/// An array of `shape` and `dtype` holding `values` (converted).
inline NDArray make_array(const Shape& shape, DType dtype, const Values& values) {
  NDArray a(shape, dtype);
  EXPECT_EQ(static_cast<int64_t>(values.size()), count(shape));
  if (dtype == DType::Float(16))
    store_as<_Float16>(a, values);
  else if (dtype == DType::Float(32))
    store_as<float>(a, values);
  else if (dtype == DType::Float(64))
    store_as<double>(a, values);
  else if (dtype == DType::Int(32))
    store_as<int32_t>(a, values);
  else if (dtype == DType::Int(64))
    store_as<int64_t>(a, values);
  else
    ADD_FAILURE() << "make_array: unsupported dtype " << dtype.to_string();
  return a;
}

inline NDArray floats(const Shape& shape, const Values& values) {
  return make_array(shape, DType::Float(32), values);
}

template <class T>
Values load_as(const NDArray& a) {
  const T* data = a.data_as<T>();
  return Values(data, data + a.size());
}

/// The elements of `a` as doubles.
inline Values values_of(const NDArray& a) {
  DType t = a.dtype();
  if (t == DType::Float(16)) return load_as<_Float16>(a);
  if (t == DType::Float(32)) return load_as<float>(a);
  if (t == DType::Float(64)) return load_as<double>(a);
  if (t == DType::Int(32)) return load_as<int32_t>(a);
  if (t == DType::Int(64)) return load_as<int64_t>(a);
  ADD_FAILURE() << "values_of: unsupported dtype " << t.to_string();
  return {};
}

/// `n` values uniform in [lo, hi), reproducible from `seed`.
inline Values random_values(int64_t n, unsigned seed, double lo = -2, double hi = 2) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Values v(static_cast<size_t>(n));
  for (double& x : v) x = dist(rng);
  return v;
}

/// `n` small integers in [lo, hi] (many ties), reproducible from `seed`.
inline Values random_ints(int64_t n, unsigned seed, int lo, int hi) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  Values v(static_cast<size_t>(n));
  for (double& x : v) x = dist(rng);
  return v;
}

/// Values of a float32 array after a round trip through float32 (references start from
/// exactly the inputs the kernel sees).
inline Values as_float32(const Values& v) {
  Values r;
  for (double x : v) r.push_back(static_cast<float>(x));
  return r;
}

/// A graph holding one `op` node of `opset` on values typed like `inputs` (nullptr: an
/// omitted optional input) with `num_outputs` outputs.
struct OneNode {
  graph::Graph graph;
  const graph::Node* node = nullptr;
};

inline OneNode one_node(const std::string& op, int opset, const std::vector<const NDArray*>& inputs,
                        const Attrs& attrs, int num_outputs) {
  OneNode result;
  graph::Graph& g = result.graph;
  graph::Node node;
  node.name = "n";
  node.op_type = op;
  node.opset = opset;
  node.attributes = attrs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]) {
      node.inputs.push_back(nullptr);
      continue;
    }
    auto type = graph::TensorType::of(graph::to_data_type(inputs[i]->dtype()), inputs[i]->shape());
    node.inputs.push_back(g.add_value(std::string("x").append(std::to_string(i)), type));
  }
  for (int k = 0; k < num_outputs; ++k)
    node.outputs.push_back(
        g.add_value(std::string("y").append(std::to_string(k)), graph::TensorType{}));
  result.node = g.add_node(std::move(node));
  return result;
}

/// Runs one `op` node (see one_node) on `inputs`.
inline std::vector<NDArray> run_op(const std::string& op, int opset,
                                   const std::vector<const NDArray*>& inputs,
                                   const Attrs& attrs = {}, int num_outputs = 1) {
  OneNode n = one_node(op, opset, inputs, attrs, num_outputs);
  return executor::run_node(*n.node, inputs);
}

/// The outputs of one `op` node (see one_node) on `inputs`, and the optimised loop IR of
/// its kernel.
struct InspectedRun {
  std::vector<NDArray> outputs;
  std::string ir;
};

inline InspectedRun run_and_inspect(const std::string& op, int opset,
                                    const std::vector<const NDArray*>& inputs,
                                    const Attrs& attrs = {}, int num_outputs = 1) {
  OneNode n = one_node(op, opset, inputs, attrs, num_outputs);
  std::vector<graph::TensorType> types;
  for (const graph::Value* v : n.node->inputs) types.push_back(v ? v->type : graph::TensorType{});
  executor::NodeKernel k = executor::compile_node(*n.node, types, inputs);
  InspectedRun result{executor::run_compiled(*n.node, k, inputs), ""};
  if (k.kernel) result.ir = ir::to_string(k.kernel->optimized());
  return result;
}

/// Expects `actual` to have `shape` and elements within atol + rtol * |expected| (NaN
/// matches NaN).
inline void expect_close(const NDArray& actual, const Shape& shape, const Values& expected,
                         double rtol = 1e-5, double atol = 1e-6) {
  ASSERT_EQ(actual.shape(), shape);
  Values got = values_of(actual);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(expected[i]) && std::isnan(got[i])) continue;
    EXPECT_NEAR(got[i], expected[i], atol + rtol * std::fabs(expected[i])) << "element " << i;
  }
}

}  // namespace tessel::reduction_test

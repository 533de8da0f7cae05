// Helpers for the compiler tests: typed graphs built by hand, random arrays, and the
// unfused reference (executor::ReferenceExecutor).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "executor/reference_executor.h"
#include "graph/graph.h"
#include "runtime/ndarray.h"

namespace tessel::compiler::testing {

inline runtime::NDArray random_array(const std::vector<int64_t>& shape, uint32_t seed) {
  runtime::NDArray a(shape, runtime::DType::Float(32));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < a.size(); ++i) a.data_as<float>()[i] = dist(rng);
  return a;
}

/// Appends a node `op` (opset 17) on `inputs` to `g`, with `outputs` untyped outputs named
/// after it (type inference types them); returns them.
inline std::vector<graph::Value*> add_untyped_node(graph::Graph& g, const std::string& op,
                                                   std::vector<graph::Value*> inputs,
                                                   std::map<std::string, graph::Attribute> attributes = {},
                                                   size_t outputs = 1) {
  graph::Node n;
  n.name = op + std::to_string(g.nodes().size());
  n.op_type = op;
  n.opset = 17;
  n.inputs = std::move(inputs);
  n.attributes = std::move(attributes);
  for (size_t k = 0; k < outputs; ++k)
    n.outputs.push_back(g.add_value(n.name + ".out" + (k ? std::to_string(k) : ""), {}));
  return g.add_node(std::move(n))->outputs;
}

/// Builds a typed float32 graph node by node (every value gets its type at creation).
class TypedGraph {
 public:
  graph::Graph graph;

  graph::Value* input(const std::string& name, std::vector<int64_t> shape) {
    graph::Value* v = graph.add_value(name, type(shape));
    graph.add_input(v);
    return v;
  }
  graph::Value* constant(const std::string& name, std::vector<int64_t> shape, uint32_t seed) {
    return graph.add_constant(name, std::make_shared<const runtime::NDArray>(random_array(shape, seed)));
  }
  graph::Value* ints(const std::string& name, std::vector<int64_t> values) {
    runtime::NDArray a({static_cast<int64_t>(values.size())}, runtime::DType::Int(64));
    for (size_t i = 0; i < values.size(); ++i) a.data_as<int64_t>()[i] = values[i];
    return graph.add_constant(name, std::make_shared<const runtime::NDArray>(std::move(a)));
  }
  graph::Value* node(const std::string& op, std::vector<graph::Value*> inputs,
                     std::vector<int64_t> out_shape,
                     std::map<std::string, graph::Attribute> attributes = {}) {
    graph::Value* out = add_untyped_node(graph, op, std::move(inputs), std::move(attributes))[0];
    out->type = type(out_shape);
    return out;
  }
  void output(graph::Value* v) { graph.add_output(v); }

 private:
  static graph::TensorType type(const std::vector<int64_t>& shape) {
    return graph::TensorType::of(ir::DataType::Float(32), shape);
  }
};

/// The graph's outputs computed node by node, each node its own kernel (no passes, no
/// fusion): the reference for the compiled model.
inline std::vector<runtime::NDArray> run_unfused(const graph::Graph& graph,
                                                 const std::vector<const runtime::NDArray*>& inputs) {
  executor::ReferenceExecutor reference(graph);
  return reference.run(inputs);
}

inline void expect_close(const runtime::NDArray& actual, const runtime::NDArray& expected,
                         double rtol = 1e-4, double atol = 1e-5) {
  ASSERT_EQ(actual.shape(), expected.shape());
  const float* a = actual.data_as<float>();
  const float* e = expected.data_as<float>();
  for (int64_t i = 0; i < actual.size(); ++i)
    ASSERT_NEAR(a[i], e[i], atol + rtol * std::abs(e[i])) << "element " << i;
}

inline graph::TensorType f32(std::vector<int64_t> shape) {
  return graph::TensorType::of(ir::DataType::Float(32), std::move(shape));
}

inline std::shared_ptr<const runtime::NDArray> int64_scalar(int64_t v) {
  auto a = std::make_shared<runtime::NDArray>(runtime::NDArray::zeros({}, runtime::DType::Int(64)));
  *a->data_as<int64_t>() = v;
  return a;
}

/// The body h -> (cond, tanh(h * w + h), h + 1 [scan]) of a Loop over h: [rows, 8]; w: [8]
/// is read from the enclosing graph. With `wrong_carried_type` the carried output is summed
/// to a scalar (a bad body).
inline std::shared_ptr<const graph::Graph> loop_body(int64_t rows,
                                                     bool wrong_carried_type = false) {
  TypedGraph body;
  body.graph.name = "body";
  graph::Value* iteration =
      body.graph.add_value("i", graph::TensorType::of(ir::DataType::Int(64), {}));
  graph::Value* cond =
      body.graph.add_value("cond", graph::TensorType::of(ir::DataType::Bool(), {}));
  body.graph.add_input(iteration);
  body.graph.add_input(cond);
  graph::Value* h = body.input("h", {rows, 8});
  graph::Value* w = body.input("w", {8});
  body.graph.captured_inputs = 1;
  graph::Value* next =
      body.node("Tanh", {body.node("Add", {body.node("Mul", {h, w}, {}), h}, {})}, {});
  if (wrong_carried_type)
    next = body.node("ReduceSum", {next}, {}, {{"keepdims", graph::Attribute::of_int(0)}});
  graph::Value* scan = body.node("Add", {h, body.constant("one", {1}, 7)}, {});
  body.output(body.node("Identity", {cond}, {}));
  body.output(next);
  body.output(scan);
  return std::make_shared<const graph::Graph>(std::move(body.graph));
}

/// y, ys = Loop(trips, c, x) over loop_body, w a constant of the main graph; c, a bool
/// input after x, only `with_condition`.
inline graph::Graph loop_model(int64_t rows, int64_t trips, bool wrong_carried_type = false,
                               bool with_condition = false) {
  graph::Graph g;
  g.name = "loop";
  g.opsets = {{"", 17}};
  graph::Value* x = g.add_value("x", f32({rows, 8}));
  g.add_input(x);
  graph::Value* w =
      g.add_constant("w", std::make_shared<const runtime::NDArray>(random_array({8}, 3)));
  graph::Value* m = g.add_constant("M", int64_scalar(trips));
  graph::Value* c = nullptr;
  if (with_condition) {
    c = g.add_value("c", graph::TensorType::of(ir::DataType::Bool(), {}));
    g.add_input(c);
  }
  graph::Node loop;
  loop.name = "loop";
  loop.op_type = "Loop";
  loop.opset = 17;
  loop.attributes["body"] = graph::Attribute::of_graph(loop_body(rows, wrong_carried_type));
  loop.inputs = {m, c, x, w};
  loop.outputs = {g.add_value("y", {}), g.add_value("ys", {})};
  g.add_node(std::move(loop));
  g.add_output(g.nodes().back()->outputs[0]);
  g.add_output(g.nodes().back()->outputs[1]);
  return g;
}

}  // namespace tessel::compiler::testing

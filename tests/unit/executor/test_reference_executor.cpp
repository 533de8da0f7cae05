// ReferenceExecutor: whole graphs compiled and run, checked against naive loops; plans
// specialised on shape-determining inputs; constant folding; errors naming the culprit.
#include <gtest/gtest.h>

#include <cmath>

#include "executor/reference_executor.h"
#include "support/error.h"

namespace tessel::executor {
namespace {

using graph::Attribute;
using graph::TensorType;
using ir::DataType;
using runtime::DType;
using runtime::NDArray;

NDArray floats(std::vector<int64_t> shape, std::vector<float> values) {
  NDArray array(std::move(shape), DType::Float(32));
  EXPECT_EQ(array.size(), static_cast<int64_t>(values.size()));
  std::copy(values.begin(), values.end(), array.data_as<float>());
  return array;
}

NDArray int64s(std::vector<int64_t> values) {
  NDArray array({static_cast<int64_t>(values.size())}, DType::Int(64));
  std::copy(values.begin(), values.end(), array.data_as<int64_t>());
  return array;
}

graph::Node make_node(std::string op, std::vector<graph::Value*> inputs,
                      std::vector<graph::Value*> outputs, int opset = 13) {
  graph::Node node;
  node.op_type = std::move(op);
  node.name = node.op_type + "_node";
  node.opset = opset;
  node.inputs = std::move(inputs);
  node.outputs = std::move(outputs);
  return node;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const CompileError& e) {
    return e.what();
  }
  return "(no CompileError)";
}

TEST(ReferenceExecutor, AddReluMatchesNaiveLoop) {
  graph::Graph g;
  g.name = "add_relu";
  graph::Value* x = g.add_value("x", TensorType::of(DataType::Float(32), {2, 3}));
  g.add_input(x);
  graph::Value* w = g.add_constant(
      "w", std::make_shared<const NDArray>(floats({3}, {0.5f, -2.0f, 1.0f})));
  graph::Value* sum = g.add_value("sum", {});
  graph::Value* y = g.add_value("y", {});
  g.add_node(make_node("Add", {x, w}, {sum}));
  g.add_node(make_node("Relu", {sum}, {y}));
  g.add_output(y);

  ReferenceExecutor executor(g);
  NDArray input = floats({2, 3}, {1, 2, -3, -4, 5, 6});
  std::vector<NDArray> out = executor.run({&input});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{2, 3}));
  const float wv[3] = {0.5f, -2.0f, 1.0f};
  for (int k = 0; k < 6; ++k)
    EXPECT_FLOAT_EQ(out[0].data_as<float>()[k], std::max(0.0f, input.data_as<float>()[k] + wv[k % 3]));
  EXPECT_EQ(executor.num_kernels(), 2u);
}

TEST(ReferenceExecutor, ReshapeSpecialisesOnShapeInputValues) {
  graph::Graph g;
  graph::Value* x = g.add_value("x", TensorType::of(DataType::Float(32), {2, 3}));
  graph::Value* s = g.add_value("s", TensorType::of(DataType::Int(64), {2}));
  g.add_input(x);
  g.add_input(s);
  graph::Value* y = g.add_value("y", {});
  g.add_node(make_node("Reshape", {x, s}, {y}));
  g.add_output(y);

  ReferenceExecutor executor(g);
  EXPECT_EQ(executor.value_dependent_inputs(), (std::vector<bool>{false, true}));
  NDArray input = floats({2, 3}, {0, 1, 2, 3, 4, 5});
  NDArray shape_a = int64s({3, 2}), shape_b = int64s({1, -1});
  std::vector<NDArray> a = executor.run({&input, &shape_a});
  std::vector<NDArray> b = executor.run({&input, &shape_b});
  EXPECT_EQ(a[0].shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(b[0].shape(), (std::vector<int64_t>{1, 6}));
  for (int k = 0; k < 6; ++k) {
    EXPECT_EQ(a[0].data_as<float>()[k], k);
    EXPECT_EQ(b[0].data_as<float>()[k], k);
  }
}

TEST(ReferenceExecutor, ConstantSubgraphsAreFoldedAtCompileTime) {
  graph::Graph g;
  graph::Value* x = g.add_value("x", TensorType::of(DataType::Float(32), {4}));
  g.add_input(x);
  graph::Value* w = g.add_constant("w", std::make_shared<const NDArray>(floats({4}, {1, 2, 3, 4})));
  graph::Value* doubled = g.add_value("doubled", {});
  graph::Value* y = g.add_value("y", {});
  g.add_node(make_node("Add", {w, w}, {doubled}));
  g.add_node(make_node("Mul", {x, doubled}, {y}));
  g.add_output(y);

  ReferenceExecutor executor(g);
  NDArray input = floats({4}, {1, -1, 0.5f, 2});
  std::vector<NDArray> out = executor.run({&input});
  EXPECT_EQ(executor.num_kernels(), 1u);  // only the Mul runs per inference
  const float expected[4] = {2, -4, 3, 16};
  for (int k = 0; k < 4; ++k) EXPECT_FLOAT_EQ(out[0].data_as<float>()[k], expected[k]);
}

TEST(ReferenceExecutor, BadInputsNameTheInput) {
  graph::Graph g;
  graph::Value* x = g.add_value("x", TensorType::of(DataType::Float(32), {2, 3}));
  g.add_input(x);
  graph::Value* y = g.add_value("y", {});
  g.add_node(make_node("Relu", {x}, {y}));
  g.add_output(y);
  ReferenceExecutor executor(g);

  NDArray wrong_shape = floats({3, 2}, {0, 0, 0, 0, 0, 0});
  NDArray wrong_dtype({2, 3}, DType::Float(64));
  NDArray right = floats({2, 3}, {0, 0, 0, 0, 0, 0});
  EXPECT_NE(message_of([&] { executor.run({&wrong_shape}); }).find("'x': dimension 0 must be 2"),
            std::string::npos);
  EXPECT_NE(message_of([&] { executor.run({&wrong_dtype}); }).find("expected dtype float32"),
            std::string::npos);
  EXPECT_NE(message_of([&] { executor.run({&right, &right}); }).find("takes 1 inputs, got 2"),
            std::string::npos);
}

TEST(ReferenceExecutor, UnsupportedOperatorIsNamed) {
  graph::Graph g;
  graph::Value* x = g.add_value("x", TensorType::of(DataType::Float(32), {2}));
  g.add_input(x);
  graph::Value* y = g.add_value("y", {});
  g.add_node(make_node("NoSuchOperator", {x}, {y}, 11));
  g.add_output(y);
  ReferenceExecutor executor(g);
  NDArray input = floats({2}, {1, 2});
  std::string message = message_of([&] { executor.run({&input}); });
  EXPECT_NE(message.find("node 'NoSuchOperator_node'"), std::string::npos) << message;
  EXPECT_NE(message.find("opset 11"), std::string::npos) << message;
  EXPECT_NE(message.find("'NoSuchOperator' is not supported"), std::string::npos) << message;
}

TEST(ReferenceExecutor, WrongAttributeTypeIsACompileError) {
  graph::Graph g;
  graph::Value* x = g.add_value("x", TensorType::of(DataType::Float(32), {2}));
  g.add_input(x);
  graph::Value* y = g.add_value("y", {});
  graph::Node node = make_node("LeakyRelu", {x}, {y});
  node.attributes["alpha"] = Attribute::of_string("0.1");
  g.add_node(std::move(node));
  g.add_output(y);
  ReferenceExecutor executor(g);
  NDArray input = floats({2}, {1, -2});
  std::string message = message_of([&] { executor.run({&input}); });
  EXPECT_NE(message.find("attribute 'alpha' must be of type float, found string"),
            std::string::npos)
      << message;
}

TEST(ReferenceExecutor, AbsurdShapeIsRejectedBeforeAllocation) {
  graph::Graph g;
  graph::Value* shape = g.add_constant("shape", std::make_shared<const NDArray>(
                                                    int64s({int64_t{1} << 40, 1024})));
  graph::Value* y = g.add_value("y", {});
  g.add_node(make_node("ConstantOfShape", {shape}, {y}, 9));
  g.add_output(y);
  ReferenceExecutor executor(g);
  std::string message = message_of([&] { executor.run({}); });
  EXPECT_NE(message.find("more than 2^34 elements"), std::string::npos) << message;
}

}  // namespace
}  // namespace tessel::executor

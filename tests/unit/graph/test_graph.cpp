// Graph IR: construction rules, the verifier's checks, the printer's text, shape guards.
#include <gtest/gtest.h>

#include "graph/graph.h"
#include "support/error.h"

namespace tessel::graph {
namespace {

using ir::DataType;

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const CompileError& e) {
    return e.what();
  }
  return "(no CompileError)";
}

Node call(std::string op, std::vector<Value*> inputs, std::vector<Value*> outputs) {
  Node node;
  node.op_type = std::move(op);
  node.name = node.op_type;
  node.opset = 13;
  node.inputs = std::move(inputs);
  node.outputs = std::move(outputs);
  return node;
}

TEST(Graph, PrinterListsInputsConstantsNodesAndOutputs) {
  Graph g;
  g.name = "main";
  TensorType x_type;
  x_type.dtype = DataType::Float(32);
  x_type.dims = {Dim::named("N"), Dim::of(3)};
  Value* x = g.add_value("x", x_type);
  g.add_input(x);
  auto w_data = std::make_shared<const runtime::NDArray>(std::vector<int64_t>{3},
                                                         runtime::DType::Float(32));
  Value* w = g.add_constant("w", w_data);
  Value* y = g.add_value("y", {});
  Node add = call("Add", {x, w}, {y});
  add.attributes["note"] = Attribute::of_ints({1, 2});
  g.add_node(std::move(add));
  g.add_output(y);
  verify(g);
  EXPECT_EQ(to_string(g),
            "graph main\n"
            "  input %x: float32[N, 3]\n"
            "  const %w: float32[3]\n"
            "  %y = Add(%x, %w) {note = [1, 2]}\n"
            "  output %y: float32[]\n");
}

TEST(Graph, VerifierRejectsUseBeforeDefinition) {
  Graph g;
  Value* x = g.add_value("x", TensorType::of(DataType::Float(32), {2}));
  g.add_input(x);
  Value* a = g.add_value("a", {});
  Value* b = g.add_value("b", {});
  g.add_node(call("Relu", {a}, {b}));  // reads `a` before anything defines it
  g.add_node(call("Relu", {x}, {a}));
  g.add_output(b);
  EXPECT_NE(message_of([&] { verify(g); }).find("input 0 'a' is not a graph input"),
            std::string::npos);
}

TEST(Graph, VerifierRejectsUncomputedOutput) {
  Graph g;
  Value* y = g.add_value("y", {});
  g.add_output(y);
  EXPECT_NE(message_of([&] { verify(g); }).find("graph output 'y' is never computed"),
            std::string::npos);
}

TEST(Graph, ValuesHaveUniqueNamesAndOneProducer) {
  Graph g;
  Value* x = g.add_value("x", TensorType::of(DataType::Float(32), {2}));
  g.add_input(x);
  EXPECT_NE(message_of([&] { g.add_value("x", {}); }).find("value 'x' is defined twice"),
            std::string::npos);
  Value* y = g.add_value("y", {});
  g.add_node(call("Relu", {x}, {y}));
  EXPECT_NE(message_of([&] { g.add_node(call("Neg", {x}, {y})); })
                .find("output 'y' is already defined"),
            std::string::npos);
  EXPECT_NE(message_of([&] { g.add_node(call("Neg", {y}, {x})); }).find("is a graph input"),
            std::string::npos);
}

TEST(Graph, ElementCountGuardRejectsAbsurdShapes) {
  EXPECT_EQ(checked_num_elements({2, 3, 4}, "t"), 24);
  EXPECT_EQ(checked_num_elements({}, "t"), 1);
  EXPECT_EQ(checked_num_elements({0, int64_t{1} << 40}, "t"), 0);
  EXPECT_NE(message_of([] { checked_num_elements({int64_t{1} << 40, 1024}, "t"); })
                .find("more than 2^34 elements"),
            std::string::npos);
  EXPECT_NE(message_of([] { checked_num_elements({4, -1}, "t"); }).find("dimension 1 is -1"),
            std::string::npos);
}

TEST(Graph, TensorTypeStaticShape) {
  TensorType t = TensorType::of(DataType::Int(64), {2, 5});
  EXPECT_TRUE(t.has_static_shape());
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(t.to_string(), "int64[2, 5]");
  t.dims[0] = Dim::named("batch");
  EXPECT_FALSE(t.has_static_shape());
  EXPECT_NE(message_of([&] { t.shape(); }).find("symbolic dimension 'batch'"), std::string::npos);
}

}  // namespace
}  // namespace tessel::graph

// infer_types: every node output typed from the registry's inference; errors naming the
// node or the input.
#include "passes/infer_types.h"
#include "passes_test_util.h"

namespace tessel::passes {
namespace {

using namespace testing;

TEST(InferTypes, TypesEveryNodeOutput) {
  TestGraph t;
  graph::Value* x = t.input("x", {2, 3});
  graph::Value* w = t.random("w", {3, 4});
  graph::Value* y = t.op("MatMul", "y", {x, w});
  graph::Value* z = t.op("Reshape", "z", {y, t.ints("shape", {4, -1})});
  t.output(t.op("Relu", "r", {z}));
  graph::Graph typed = infer_types(t.g);
  EXPECT_EQ(graph::to_string(typed),
            "graph g\n"
            "  input %x: float32[2, 3]\n"
            "  const %w: float32[3, 4]\n"
            "  const %shape: int64[2]\n"
            "  %y = MatMul(%x, %w)\n"
            "  %z = Reshape(%y, %shape)\n"
            "  %r = Relu(%z)\n"
            "  output %r: float32[4, 2]\n");
  EXPECT_EQ(typed.find_value("y")->type.to_string(), "float32[2, 4]");
  EXPECT_EQ(typed.find_value("z")->type.to_string(), "float32[4, 2]");
}

TEST(InferTypes, MultipleOutputsAndOmittedOnes) {
  TestGraph t;
  graph::Value* x = t.input("x", {6, 2});
  std::vector<graph::Value*> parts = t.ops("Split", {"a", "", "c"}, {x, t.ints("split", {1, 2, 3})},
                                           {{"axis", Attribute::of_int(0)}});
  t.output(parts[2]);
  graph::Graph typed = infer_types(t.g);
  EXPECT_EQ(typed.find_value("a")->type.to_string(), "float32[1, 2]");
  EXPECT_EQ(typed.find_value("c")->type.to_string(), "float32[3, 2]");
}

TEST(InferTypes, ErrorNamesTheNode) {
  TestGraph t;
  graph::Value* x = t.input("x", {2, 3});
  t.output(t.op("MatMul", "bad_product", {x, t.random("w", {4, 5})}));
  std::string message = error_of([&] { infer_types(t.g); });
  EXPECT_NE(message.find("bad_product"), std::string::npos) << message;
  EXPECT_NE(message.find("MatMul"), std::string::npos) << message;
}

TEST(InferTypes, ErrorNamesAnUnsupportedOperator) {
  TestGraph t;
  t.output(t.op("NoSuchOp", "n", {t.input("x", {2})}));
  std::string message = error_of([&] { infer_types(t.g); });
  EXPECT_NE(message.find("'n' (NoSuchOp)"), std::string::npos) << message;
}

TEST(InferTypes, ValueInputMustBeConstant) {
  TestGraph t;
  graph::Value* x = t.input("x", {2, 3});
  graph::Value* shape = t.input("s", {2}, kI64);
  t.output(t.op("Reshape", "z", {x, shape}));
  std::string message = error_of([&] { infer_types(t.g); });
  EXPECT_NE(message.find("'z' (Reshape)"), std::string::npos) << message;
  EXPECT_NE(message.find("must be known at compile time"), std::string::npos) << message;
}

TEST(InferTypes, SymbolicInputIsAnError) {
  graph::Graph g;
  graph::TensorType type;
  type.dims = {graph::Dim::named("N"), graph::Dim::of(3)};
  graph::Value* x = g.add_value("x", type);
  g.add_input(x);
  g.add_output(x);
  std::string message = error_of([&] { infer_types(g); });
  EXPECT_NE(message.find("graph input 'x'"), std::string::npos) << message;
  EXPECT_NE(message.find("float32[N, 3]"), std::string::npos) << message;
}

}  // namespace
}  // namespace tessel::passes

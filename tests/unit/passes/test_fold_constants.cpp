// fold_constants: constant subexpressions and metadata operators become constants computed
// by our kernels; large generated tensors stay nodes; names and types are kept.
#include "passes/fold_constants.h"
#include "passes_test_util.h"

namespace tessel::passes {
namespace {

using namespace testing;

TEST(FoldConstants, FoldsConstantSubexpressions) {
  TestGraph t;
  graph::Value* x = t.input("x", {2, 3});
  graph::Value* a = t.random("a", {3});
  graph::Value* b = t.random("b", {3});
  graph::Value* sum = t.op("Add", "sum", {a, b});
  graph::Value* scale = t.op("Exp", "scale", {sum});
  t.output(t.op("Mul", "y", {x, scale}));
  graph::Graph folded = fold_constants(t.g);
  EXPECT_EQ(graph::to_string(folded),
            "graph g\n"
            "  input %x: float32[2, 3]\n"
            "  const %scale: float32[3]\n"
            "  %y = Mul(%x, %scale)\n"
            "  output %y: float32[2, 3]\n");
  const float* av = t.g.find_value("a")->constant->data_as<float>();
  const float* bv = t.g.find_value("b")->constant->data_as<float>();
  const float* sv = folded.find_value("scale")->constant->data_as<float>();
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(sv[k], std::exp(av[k] + bv[k]), 1e-6);
  expect_same_results(t.g, folded);
}

TEST(FoldConstants, ShapeComputationsBecomeConstants) {
  // Reshape(x, Concat(Gather(Shape(x), 0), [-1])): the shape folds from x's type.
  TestGraph t;
  graph::Value* x = t.input("x", {2, 3, 4});
  graph::Value* shape = t.op("Shape", "shape", {x});
  graph::Value* batch = t.op("Gather", "batch", {shape, t.ints("zero", {0})});
  graph::Value* target = t.op("Concat", "target", {batch, t.ints("minus_one", {-1})},
                              {{"axis", Attribute::of_int(0)}});
  t.output(t.op("Reshape", "y", {x, target}));
  graph::Graph folded = fold_constants(t.g);
  EXPECT_EQ(graph::to_string(folded),
            "graph g\n"
            "  input %x: float32[2, 3, 4]\n"
            "  const %target: int64[2]\n"
            "  %y = Reshape(%x, %target)\n"
            "  output %y: float32[2, 12]\n");
  const int64_t* tv = folded.find_value("target")->constant->data_as<int64_t>();
  EXPECT_EQ(tv[0], 2);
  EXPECT_EQ(tv[1], -1);
  expect_same_results(t.g, folded);
}

TEST(FoldConstants, TypesTheNodesItKeeps) {
  TestGraph t;
  graph::Value* x = t.input("x", {4, 5});
  graph::Value* y = t.op("Transpose", "y", {x});
  t.output(t.op("Relu", "z", {y}));
  graph::Graph folded = fold_constants(t.g);
  EXPECT_EQ(folded.find_value("y")->type.to_string(), "float32[5, 4]");
  EXPECT_EQ(folded.find_value("z")->type.to_string(), "float32[5, 4]");
}

TEST(FoldConstants, WholeGraphFoldsAndKeepsOutputNames) {
  TestGraph t;
  graph::Value* x = t.input("x", {2});
  graph::Value* c = t.random("c", {2});
  t.output(t.op("Neg", "y", {c}));
  t.output(x);
  graph::Graph folded = fold_constants(t.g);
  EXPECT_EQ(graph::to_string(folded),
            "graph g\n"
            "  input %x: float32[2]\n"
            "  const %y: float32[2]\n"
            "  output %y: float32[2]\n"
            "  output %x: float32[2]\n");
  expect_same_results(t.g, folded);
}

TEST(FoldConstants, LargeGeneratedTensorsStayNodes) {
  // ConstantOfShape of [2048, 1024] from two numbers would be 8 MB of constant data.
  TestGraph t;
  graph::Value* x = t.input("x", {2048, 1024});
  graph::Value* big = t.op("ConstantOfShape", "big", {t.ints("dims", {2048, 1024})},
                           {{"value", Attribute::of_tensor(std::make_shared<const runtime::NDArray>(
                                          array_of(kF32, {1}, {0.5})))}});
  graph::Value* small = t.op("ConstantOfShape", "small", {t.ints("dims2", {4})});
  graph::Value* y = t.op("Add", "y", {x, big});
  t.output(y);
  t.output(small);
  graph::Graph folded = fold_constants(t.g);
  EXPECT_EQ(graph::to_string(folded),
            "graph g\n"
            "  input %x: float32[2048, 1024]\n"
            "  const %dims: int64[2]\n"
            "  const %small: float32[4]\n"
            "  %big = ConstantOfShape(%dims) {value = tensor float32[1]}\n"
            "  %y = Add(%x, %big)\n"
            "  output %y: float32[2048, 1024]\n"
            "  output %small: float32[4]\n");
}

TEST(FoldConstants, ErrorNamesTheNode) {
  TestGraph t;
  graph::Value* a = t.random("a", {2, 3});
  graph::Value* b = t.random("b", {4, 3});
  t.output(t.op("Add", "bad_sum", {a, b}));
  std::string message = error_of([&] { fold_constants(t.g); });
  EXPECT_NE(message.find("'bad_sum' (Add)"), std::string::npos) << message;
}

}  // namespace
}  // namespace tessel::passes

namespace tessel::passes {
namespace {

using namespace testing;

TEST(FoldConstants, NodesThatDifferOnlyInAttributeValuesFoldApart) {
  // Folding shares kernels between nodes of one signature: two Constant nodes with tensors
  // of one type, and two LeakyRelu whose alphas differ in the last bits, must still differ.
  TestGraph t;
  auto scalar = [](float v) {
    runtime::NDArray a({1}, runtime::DType::Float(32));
    a.data_as<float>()[0] = v;
    return Attribute::of_tensor(std::make_shared<const runtime::NDArray>(std::move(a)));
  };
  graph::Value* one = t.op("Constant", "one", {}, {{"value", scalar(1.0f)}});
  graph::Value* two = t.op("Constant", "two", {}, {{"value", scalar(-2.0f)}});
  graph::Value* a = t.op("LeakyRelu", "a", {two}, {{"alpha", Attribute::of_float(0.1)}});
  graph::Value* b = t.op("LeakyRelu", "b", {two}, {{"alpha", Attribute::of_float(0.1 + 1e-7)}});
  graph::Value* ab = t.op("Sub", "ab", {a, b});
  t.output(t.op("Add", "y", {one, ab}));
  graph::Graph folded = fold_constants(t.g);
  const float y = folded.find_value("y")->constant->data_as<float>()[0];
  EXPECT_FLOAT_EQ(y, 1.0f + (-2.0f * 0.1f) - static_cast<float>(-2.0 * (0.1 + 1e-7)));
  EXPECT_NE(y, 1.0f);
}

}  // namespace
}  // namespace tessel::passes

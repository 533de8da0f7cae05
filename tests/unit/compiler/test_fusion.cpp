// fuse_operators: which nodes share a kernel, and that fused kernels compute what the
// unfused nodes compute.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/compile_model.h"
#include "compiler/fusion.h"
#include "compiler_test_util.h"
#include "ir/functor.h"

namespace tessel::compiler {
namespace {

using testing::TypedGraph;

std::vector<std::string> labels(const std::vector<FusedGroup>& groups) {
  std::vector<std::string> text;
  for (const FusedGroup& g : groups) text.push_back(g.label());
  return text;
}

graph::Attribute ints(std::vector<int64_t> v) {
  return graph::Attribute::of_ints(std::move(v));
}

/// Conv -> Add(bias) -> Add(residual) -> Relu, then MaxPool (opaque) and a Softmax.
TypedGraph conv_block() {
  TypedGraph t;
  graph::Value* x = t.input("x", {1, 8, 10, 10});
  graph::Value* w = t.constant("w", {8, 8, 3, 3}, 1);
  graph::Value* b = t.constant("b", {1, 8, 1, 1}, 2);
  graph::Value* conv = t.node("Conv", {x, w}, {1, 8, 10, 10}, {{"pads", ints({1, 1, 1, 1})}});
  graph::Value* biased = t.node("Add", {conv, b}, {1, 8, 10, 10});
  graph::Value* residual = t.node("Add", {biased, x}, {1, 8, 10, 10});
  graph::Value* relu = t.node("Relu", {residual}, {1, 8, 10, 10});
  graph::Value* pooled = t.node("MaxPool", {relu}, {1, 8, 5, 5},
                                {{"kernel_shape", ints({2, 2})}, {"strides", ints({2, 2})}});
  t.output(t.node("Softmax", {pooled}, {1, 8, 5, 5}));
  return t;
}

TEST(Fusion, EpilogueJoinsTheConvolution) {
  TypedGraph t = conv_block();
  std::vector<FusedGroup> groups = fuse_operators(t.graph);
  EXPECT_EQ(labels(groups), (std::vector<std::string>{"Conv+Add+Add+Relu", "MaxPool", "Softmax"}));
  EXPECT_EQ(groups[0].anchor->op_type, "Conv");
  std::vector<FusedGroup> unfused = fuse_operators(t.graph, FusionOptions{false});
  EXPECT_EQ(unfused.size(), 6u);
}

TEST(Fusion, ValueReadOutsideStopsTheGroup) {
  // y = Relu(x) is read by Exp and by Softmax (an operator with its own schedule): y leaves
  // its group, Exp starts another. Groups run in the order of their last node.
  TypedGraph t;
  graph::Value* x = t.input("x", {4, 16});
  graph::Value* y = t.node("Relu", {x}, {4, 16});
  graph::Value* e = t.node("Exp", {y}, {4, 16});
  graph::Value* m = t.node("Softmax", {y}, {4, 16});
  t.output(t.node("Add", {e, m}, {4, 16}));
  EXPECT_EQ(labels(fuse_operators(t.graph)),
            (std::vector<std::string>{"Relu", "Softmax", "Exp+Add"}));
}

TEST(Fusion, ElementwiseDagsJoinTheirAnchor) {
  // x * sigmoid(x) after a convolution and hard-swish written out (x * HardSigmoid(x))
  // after a product: the anchor's output is read twice, both readers join.
  TypedGraph t;
  graph::Value* x = t.input("x", {1, 8, 10, 10});
  graph::Value* conv = t.node("Conv", {x, t.constant("w", {8, 8, 3, 3}, 1)}, {1, 8, 10, 10},
                              {{"pads", ints({1, 1, 1, 1})}});
  graph::Value* silu =
      t.node("Mul", {conv, t.node("Sigmoid", {conv}, {1, 8, 10, 10})}, {1, 8, 10, 10});
  graph::Value* rows = t.node("Reshape", {silu, t.ints("shape", {80, 10})}, {80, 10});
  graph::Value* m = t.node("MatMul", {rows, t.constant("m", {10, 24}, 2)}, {80, 24});
  graph::Value* gate =
      t.node("HardSigmoid", {m}, {80, 24}, {{"alpha", graph::Attribute::of_float(1.0f / 6)}});
  t.output(t.node("Mul", {gate, m}, {80, 24}));
  EXPECT_EQ(labels(fuse_operators(t.graph)),
            (std::vector<std::string>{"Conv+Sigmoid+Mul", "Reshape", "MatMul+HardSigmoid+Mul"}));

  runtime::NDArray input = testing::random_array({1, 8, 10, 10}, 13);
  std::vector<runtime::NDArray> expected = testing::run_unfused(t.graph, {&input});
  for (bool blocked : {true, false}) {
    CompileOptions options;
    options.passes.blocked_layout = blocked;
    CompiledModel compiled = compile_model(t.graph, {t.graph.inputs()[0]->type}, {}, options);
    // Blocked, Sigmoid and Mul run on the blocks too and still join the convolution.
    std::vector<std::string> kernels =
        blocked ? std::vector<std::string>{"LayoutToNCHWc", "Conv2dNCHWc+Sigmoid+Mul",
                                           "LayoutFromNCHWc+Reshape", "MatMul+HardSigmoid+Mul"}
                : std::vector<std::string>{"Conv+Sigmoid+Mul", "Reshape", "MatMul+HardSigmoid+Mul"};
    EXPECT_EQ(labels(compiled.groups), kernels);
    EXPECT_EQ(compiled.stats.layout_changes, blocked ? 2 : 0);
    // The change into the blocks runs alone; the one back joins the Reshape.
    EXPECT_EQ(compiled.stats.layout_kernels, blocked ? 1 : 0);
    runtime::Model model = jit_model(std::move(compiled));
    testing::expect_close(model.run({&input})[0], expected[0]);
  }
}

TEST(Fusion, ReaderThatDoesNotJoinEndsTheGroup) {
  // Sigmoid joins the convolution expecting Mul to read its input inside the group, but
  // Mul broadcasts to a larger shape and cannot be an epilogue: the group ends before
  // Sigmoid, whose input leaves it.
  TypedGraph t;
  graph::Value* x = t.input("x", {1, 8, 6, 6});
  graph::Value* conv = t.node("Conv", {x, t.constant("w", {8, 8, 1, 1}, 1)}, {1, 8, 6, 6});
  graph::Value* gate = t.node("Sigmoid", {conv}, {1, 8, 6, 6});
  graph::Value* wide = t.input("wide", {2, 8, 6, 6});
  graph::Value* product = t.node("Mul", {conv, wide}, {2, 8, 6, 6});
  t.output(t.node("Add", {product, gate}, {2, 8, 6, 6}));
  EXPECT_EQ(labels(fuse_operators(t.graph)),
            (std::vector<std::string>{"Conv", "Sigmoid", "Mul+Add"}));

  runtime::NDArray input = testing::random_array({1, 8, 6, 6}, 14);
  runtime::NDArray other = testing::random_array({2, 8, 6, 6}, 15);
  std::vector<runtime::NDArray> expected = testing::run_unfused(t.graph, {&input, &other});
  runtime::Model model = jit_model(compile_graph(t.graph));
  testing::expect_close(model.run({&input, &other})[0], expected[0]);
}

TEST(Fusion, ReductionTakesItsElementwisePrologue) {
  TypedGraph t;
  graph::Value* x = t.input("x", {4, 32});
  graph::Value* y = t.node("Mul", {x, x}, {4, 32});
  graph::Value* s = t.node("ReduceSum", {y, t.ints("axes", {1})}, {4, 1});
  t.output(t.node("Sqrt", {s}, {4, 1}));
  EXPECT_EQ(labels(fuse_operators(t.graph)), (std::vector<std::string>{"Mul+ReduceSum", "Sqrt"}));
}

TEST(Fusion, InjectiveChainsButNotIntoAnAnchor) {
  // Transpose and Reshape chain with element-wise ops; MatMul takes no injective prologue,
  // and a Reshape after it is no epilogue.
  TypedGraph t;
  graph::Value* x = t.input("x", {8, 16});
  graph::Value* w = t.constant("w", {16, 8}, 3);
  graph::Value* tr = t.node("Transpose", {x}, {16, 8}, {{"perm", ints({1, 0})}});
  graph::Value* r = t.node("Relu", {tr}, {16, 8});
  graph::Value* m = t.node("MatMul", {r, w}, {16, 8});
  graph::Value* sh = t.node("Reshape", {m, t.ints("shape", {128})}, {128});
  t.output(t.node("Neg", {sh}, {128}));
  EXPECT_EQ(labels(fuse_operators(t.graph)),
            (std::vector<std::string>{"Transpose+Relu", "MatMul", "Reshape+Neg"}));
}

TEST(Fusion, FusedModelMatchesUnfusedNodes) {
  TypedGraph t = conv_block();
  runtime::NDArray x = testing::random_array({1, 8, 10, 10}, 11);
  std::vector<runtime::NDArray> expected = testing::run_unfused(t.graph, {&x});
  for (bool fuse : {true, false}) {
    CompileOptions options;
    options.fusion.enabled = fuse;
    CompiledModel compiled = compile_graph(t.graph, options);
    EXPECT_EQ(compiled.stats.kernel_launches, fuse ? 3u : 6u);
    runtime::Model model = jit_model(std::move(compiled));
    std::vector<runtime::NDArray> actual = model.run({&x});
    ASSERT_EQ(actual.size(), 1u);
    testing::expect_close(actual[0], expected[0]);
  }
}

TEST(Fusion, MatmulEpilogueAndInPlaceChain) {
  TypedGraph t;
  graph::Value* x = t.input("x", {32, 64});
  graph::Value* w = t.constant("w", {64, 48}, 4);
  graph::Value* bias = t.constant("bias", {48}, 5);
  graph::Value* m = t.node("MatMul", {x, w}, {32, 48});
  graph::Value* a = t.node("Add", {m, bias}, {32, 48});
  graph::Value* e = t.node("Tanh", {a}, {32, 48});
  graph::Value* s1 = t.node("Softmax", {e}, {32, 48});
  graph::Value* s2 = t.node("Neg", {s1}, {32, 48});
  t.output(t.node("Exp", {s2}, {32, 48}));
  runtime::NDArray xv = testing::random_array({32, 64}, 12);
  std::vector<runtime::NDArray> expected = testing::run_unfused(t.graph, {&xv});
  CompiledModel compiled = compile_graph(t.graph);
  EXPECT_EQ(compiled.stats.kernel_launches, 3u);  // MatMul+Add+Tanh, Softmax, Neg+Exp
  EXPECT_EQ(compiled.stats.in_place, 1);          // Neg+Exp writes over Softmax's output
  EXPECT_LT(compiled.plan.arena_bytes, compiled.plan.intermediate_bytes);
  runtime::Model model = jit_model(std::move(compiled));
  testing::expect_close(model.run({&xv})[0], expected[0]);
}

/// Expression nodes of a kernel, counted as a tree (as the passes after lowering walk them).
class TreeSize : public ir::IRVisitor {
 public:
  double nodes = 0;
  void visit(const ir::Expr& e) override {
    nodes += 1;
    ir::IRVisitor::visit(e);
  }
  using ir::IRVisitor::visit;
};

TEST(Fusion, ChainOfStagesReadTwiceStaysSmall) {
  // LeakyRelu reads its input twice (a select), so inlining a chain of them doubles the
  // expression at each step: 16 of them would make about 2^16 copies of the first input.
  TypedGraph t;
  graph::Value* v = t.input("x", {4, 16});
  for (int i = 0; i < 16; ++i) v = t.node("Sin", {t.node("LeakyRelu", {v}, {4, 16})}, {4, 16});
  t.output(v);
  runtime::NDArray x = testing::random_array({4, 16}, 13);
  std::vector<runtime::NDArray> expected = testing::run_unfused(t.graph, {&x});
  CompiledModel compiled = compile_graph(t.graph);
  EXPECT_EQ(compiled.stats.kernel_launches, 1u);
  TreeSize size;
  size.visit(compiled.kernels.at(0).body);
  EXPECT_LT(size.nodes, 30000);
  runtime::Model model = jit_model(std::move(compiled));
  testing::expect_close(model.run({&x})[0], expected[0]);
}

TEST(Fusion, TenThousandNodeChainCompilesInEqualGroups) {
  // The graph passes, fusion and lowering walk a 10,000-node chain without deep recursion;
  // fusion cuts it into groups of max_group_nodes, which share one kernel.
  constexpr int kNodes = 10000;
  TypedGraph t;
  graph::Value* v = t.input("x", {2, 8});
  for (int i = 0; i < kNodes; ++i) v = t.node(i % 2 ? "Neg" : "Sin", {v}, {2, 8});
  t.output(v);
  runtime::NDArray x = testing::random_array({2, 8}, 14);
  CompiledModel compiled = compile_model(t.graph, {t.graph.inputs()[0]->type});
  size_t groups = (kNodes + FusionOptions{}.max_group_nodes - 1) / FusionOptions{}.max_group_nodes;
  EXPECT_EQ(compiled.stats.kernel_launches, groups);
  EXPECT_LE(compiled.stats.unique_kernels, 2u);  // the full groups and the last, shorter one
  runtime::Model model = jit_model(std::move(compiled));
  std::vector<runtime::NDArray> outputs = model.run({&x});
  const runtime::NDArray& y = outputs.at(0);
  for (int64_t e = 0; e < x.size(); ++e) {
    double want = x.data_as<float>()[e];
    for (int i = 0; i < kNodes; ++i) want = i % 2 ? -want : std::sin(want);
    EXPECT_NEAR(y.data_as<float>()[e], want, 1e-4) << "element " << e;
  }
}

}  // namespace
}  // namespace tessel::compiler

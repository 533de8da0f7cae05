// Concatenations without copies: which concatenations run no kernel, and that the models
// whose producers write straight into the concatenated buffer compute what the unfused
// reference does.
#include <gtest/gtest.h>

#include "compiler/compile_model.h"
#include "compiler_test_util.h"

namespace tessel::compiler {
namespace {

using testing::TypedGraph;

graph::Attribute axis(int64_t a) { return graph::Attribute::of_int(a); }

/// x [1, 8, 16] through a product with its own weights: a value computed by a kernel.
graph::Value* branch(TypedGraph& t, graph::Value* x, int64_t rows, uint32_t seed) {
  graph::Value* w = t.constant("w" + std::to_string(seed), {16, 16}, seed);
  return t.node("MatMul", {x, w}, {1, rows, 16});
}

/// A graph of input x [1, 8, 16] and two products of it, a and b, to concatenate.
struct TwoBranches {
  TypedGraph t;
  graph::Value* x = t.input("x", {1, 8, 16});
  graph::Value* a = branch(t, x, 8, 1);
  graph::Value* b = branch(t, x, 8, 2);
};

/// Compiles `t`, checks its result against the unfused reference and returns the stats.
CompileStats compile_and_check(const TypedGraph& t, const std::vector<int64_t>& input_shape) {
  runtime::NDArray xv = testing::random_array(input_shape, 7);
  std::vector<runtime::NDArray> expected = testing::run_unfused(t.graph, {&xv});
  CompiledModel compiled = compile_graph(t.graph);
  CompileStats stats = compiled.stats;
  runtime::Model model = jit_model(std::move(compiled));
  std::vector<runtime::NDArray> actual = model.run({&xv});
  EXPECT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < std::min(actual.size(), expected.size()); ++i)
    testing::expect_close(actual[i], expected[i]);
  return stats;
}

TEST(ConcatViews, BranchesWriteStraightIntoTheirSlices) {
  // Inception: branches of one input side by side, read by one product.
  TypedGraph t;
  graph::Value* x = t.input("x", {1, 8, 16});
  graph::Value* joined = t.node("Concat", {branch(t, x, 8, 1), branch(t, x, 8, 2),
                                           branch(t, x, 8, 3)},
                                {1, 24, 16}, {{"axis", axis(1)}});
  t.output(branch(t, joined, 24, 4));
  CompileStats stats = compile_and_check(t, {1, 8, 16});
  EXPECT_EQ(stats.concats_in_place, 1);
  EXPECT_EQ(stats.kernel_launches, 4u);  // the four products, no copy
}

TEST(ConcatViews, GrowingConcatenationsShareOneBuffer) {
  // DenseNet: each concatenation holds all the features so far; the smaller is the span
  // of the larger one's first inputs, and a feature read from it is written after it.
  TwoBranches g;
  auto& [t, x, a, b] = g;
  graph::Value* first = t.node("Concat", {a, b}, {1, 16, 16}, {{"axis", axis(1)}});
  graph::Value* c = branch(t, first, 16, 3);
  graph::Value* second = t.node("Concat", {a, b, c}, {1, 32, 16}, {{"axis", axis(-2)}});
  t.output(branch(t, second, 32, 4));
  CompileStats stats = compile_and_check(t, {1, 8, 16});
  EXPECT_EQ(stats.concats_in_place, 2);
  EXPECT_EQ(stats.kernel_launches, 4u);
}

TEST(ConcatViews, AValueInTwoPlacesIsCopiedIntoOne) {
  // b then a in the later concatenation, a then b in the earlier: only one order can hold.
  TwoBranches g;
  auto& [t, x, a, b] = g;
  graph::Value* first = t.node("Concat", {a, b}, {1, 16, 16}, {{"axis", axis(1)}});
  graph::Value* second = t.node("Concat", {b, a}, {1, 16, 16}, {{"axis", axis(1)}});
  t.output(branch(t, first, 16, 3));
  t.output(branch(t, second, 16, 4));
  CompileStats stats = compile_and_check(t, {1, 8, 16});
  EXPECT_EQ(stats.concats_in_place, 1);
}

TEST(ConcatViews, CopiesWhatCannotBeASlice) {
  TypedGraph t;
  graph::Value* x = t.input("x", {1, 8, 16});
  graph::Value* a = branch(t, x, 8, 1);
  // A graph input, a value read twice, an axis after a dimension above 1, and slices not
  // aligned for the kernels (8 rows of 5 floats: 160 bytes).
  graph::Value* with_input = t.node("Concat", {x, a}, {1, 16, 16}, {{"axis", axis(1)}});
  graph::Value* twice = t.node("Concat", {a, a}, {1, 16, 16}, {{"axis", axis(1)}});
  graph::Value* wide = t.node("Concat", {a, branch(t, x, 8, 2)}, {1, 8, 32}, {{"axis", axis(2)}});
  graph::Value* narrow_1 = t.node("MatMul", {a, t.constant("w5", {16, 5}, 5)}, {1, 8, 5});
  graph::Value* narrow_2 = t.node("MatMul", {a, t.constant("w6", {16, 5}, 6)}, {1, 8, 5});
  graph::Value* unaligned =
      t.node("Concat", {narrow_1, narrow_2}, {1, 16, 5}, {{"axis", axis(1)}});
  for (graph::Value* v : {with_input, twice, wide, unaligned}) t.output(v);
  CompileStats stats = compile_and_check(t, {1, 8, 16});
  EXPECT_EQ(stats.concats_in_place, 0);
}

}  // namespace
}  // namespace tessel::compiler

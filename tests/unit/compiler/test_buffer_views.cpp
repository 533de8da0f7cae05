// Values inside other values' buffers: which concatenations, slices and splits run no
// kernel, and that the models whose producers write straight into the concatenated buffer,
// or whose readers read windows of their input in place, compute what the unfused
// reference does.
#include <gtest/gtest.h>

#include "compiler/compile_model.h"
#include "compiler_test_util.h"

namespace tessel::compiler {
namespace {

using testing::f32;
using testing::TypedGraph;

graph::Attribute axis(int64_t a) {
  return graph::Attribute::of_int(a);
}

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
  graph::Value* joined =
      t.node("Concat", {branch(t, x, 8, 1), branch(t, x, 8, 2), branch(t, x, 8, 3)}, {1, 24, 16},
             {{"axis", axis(1)}});
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
  graph::Value* unaligned = t.node("Concat", {narrow_1, narrow_2}, {1, 16, 5}, {{"axis", axis(1)}});
  for (graph::Value* v : {with_input, twice, wide, unaligned}) t.output(v);
  CompileStats stats = compile_and_check(t, {1, 8, 16});
  EXPECT_EQ(stats.concats_in_place, 0);
}

/// Slice of `x` along `axis` from `start` to `end` (step `step`) into `out_shape`.
graph::Value* slice(TypedGraph& t, graph::Value* x, int64_t axis, int64_t start, int64_t end,
                    std::vector<int64_t> out_shape, int64_t step = 1) {
  static int made = 0;
  std::string id = std::to_string(made++);
  return t.node("Slice",
                {x, t.ints("starts" + id, {start}), t.ints("ends" + id, {end}),
                 t.ints("axes" + id, {axis}), t.ints("steps" + id, {step})},
                std::move(out_shape));
}

TEST(SliceViews, AChannelSliceAtBatchOneIsReadInPlace) {
  // ShuffleNet's halves: rows 4..8 of a product's [1, 8, 16] output are one contiguous run.
  TwoBranches g;
  auto& [t, x, a, b] = g;
  t.output(branch(t, slice(t, a, 1, 4, 8, {1, 4, 16}), 4, 3));
  t.output(b);
  CompileStats stats = compile_and_check(t, {1, 8, 16});
  EXPECT_EQ(stats.slices_in_place, 1);
  EXPECT_EQ(stats.kernel_launches, 3u);  // the three products, no copy
}

TEST(SliceViews, EveryOutputOfASplitIsAWindow) {
  TypedGraph t;
  graph::Value* x = t.input("x", {1, 8, 16});
  graph::Value* a = branch(t, x, 8, 1);
  std::vector<graph::Value*> parts = testing::add_untyped_node(
      t.graph, "Split", {a, t.ints("split", {2, 6})}, {{"axis", graph::Attribute::of_int(-2)}}, 2);
  parts[0]->type = f32({1, 2, 16});
  parts[1]->type = f32({1, 6, 16});
  t.output(branch(t, parts[0], 2, 2));
  t.output(branch(t, parts[1], 6, 3));
  CompileStats stats = compile_and_check(t, {1, 8, 16});
  EXPECT_EQ(stats.slices_in_place, 1);
  EXPECT_EQ(stats.kernel_launches, 3u);
}

TEST(SliceViews, AWindowKeepsItsBufferAliveForItsReaders) {
  // The sigmoid is the product's last reader but for the window read after it: were the
  // sigmoid to take the product's memory, the window would read sigmoid values.
  TypedGraph t;
  graph::Value* x = t.input("x", {1, 8, 16});
  graph::Value* a = branch(t, x, 8, 1);
  graph::Value* window = slice(t, a, 1, 0, 4, {1, 4, 16});
  graph::Value* squashed = t.node("Sigmoid", {a}, {1, 8, 16});
  t.output(branch(t, squashed, 8, 2));
  t.output(branch(t, window, 4, 3));
  CompileStats stats = compile_and_check(t, {1, 8, 16});
  EXPECT_EQ(stats.slices_in_place, 1);
}

TEST(SliceViews, AWindowOfAConcatenatedBufferLiesInsideIt) {
  // The branches are computed into the concatenation's buffer; the slice reads b's half.
  TwoBranches g;
  auto& [t, x, a, b] = g;
  graph::Value* joined = t.node("Concat", {a, b}, {1, 16, 16}, {{"axis", axis(1)}});
  t.output(branch(t, joined, 16, 3));
  t.output(branch(t, slice(t, joined, 1, 8, 16, {1, 8, 16}), 8, 4));
  CompileStats stats = compile_and_check(t, {1, 8, 16});
  EXPECT_EQ(stats.concats_in_place, 1);
  EXPECT_EQ(stats.slices_in_place, 1);
  EXPECT_EQ(stats.kernel_launches, 4u);
}

TEST(SliceViews, CopiesWhatCannotBeAWindow) {
  TypedGraph t;
  graph::Value* x = t.input("x", {1, 8, 16});
  graph::Value* a = branch(t, x, 8, 1);
  graph::Value* narrow = t.node("MatMul", {a, t.constant("w5", {16, 5}, 5)}, {1, 8, 5});
  // A graph input; columns of every row (a cut after an axis of extent 8); rows backwards;
  // rows of 5 floats from the second on (20 bytes in: not aligned for the kernels); the whole
  // product; a graph output.
  std::vector<graph::Value*> copies = {
      slice(t, x, 1, 0, 4, {1, 4, 16}), slice(t, a, 2, 0, 8, {1, 8, 8}),
      slice(t, a, 1, 7, -9, {1, 8, 16}, -1), slice(t, narrow, 1, 1, 8, {1, 7, 5}),
      slice(t, a, 1, 0, 8, {1, 8, 16})};
  for (size_t k = 0; k < copies.size(); ++k) {
    // A product reads each (a reader that takes no slice into its kernel).
    std::vector<int64_t> shape = copies[k]->type.shape();
    graph::Value* w = t.constant("r" + std::to_string(k), {shape[2], 4}, 10 + k);
    t.output(t.node("MatMul", {copies[k], w}, {1, shape[1], 4}));
  }
  t.output(slice(t, a, 1, 4, 8, {1, 4, 16}));
  CompileStats stats = compile_and_check(t, {1, 8, 16});
  EXPECT_EQ(stats.slices_in_place, 0);
}

}  // namespace
}  // namespace tessel::compiler

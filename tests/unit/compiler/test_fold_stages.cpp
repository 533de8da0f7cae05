// fold_constant_stages: stages that read only constants are evaluated at compile time and
// read back as constants; the compiled model stores prepared (packed) weights only.
#include <gtest/gtest.h>

#include "compiler/compile_model.h"
#include "compiler/fold_stages.h"
#include "compiler_test_util.h"
#include "te/compute.h"
#include "te/dag.h"

namespace tessel::compiler {
namespace {

TEST(FoldStages, ConstantStagesBecomePlaceholders) {
  te::Tensor w = te::placeholder({4, 5}, ir::DataType::Float(32), "w");
  te::Tensor x = te::placeholder({4, 5}, ir::DataType::Float(32), "x");
  te::Tensor scaled = te::compute(
      {4, 5}, [&](te::Var i, te::Var j) { return w(i, j) * 2.0f; }, "scaled");
  te::Tensor y = te::compute(
      {4, 5}, [&](te::Var i, te::Var j) { return scaled(i, j) + x(i, j); }, "y");
  runtime::NDArray data = testing::random_array({4, 5}, 3);
  FoldCache cache;
  StageFolding folding = fold_constant_stages({y}, {{w.op().get(), &data}}, "test", cache);
  ASSERT_EQ(folding.folded.size(), 1u);
  const runtime::NDArray& folded = *folding.folded[0].data;
  for (int64_t k = 0; k < 20; ++k)
    EXPECT_FLOAT_EQ(folded.data_as<float>()[k], 2.0f * data.data_as<float>()[k]);
  // The rebuilt output reads x and the folded placeholder, no longer w or `scaled`.
  std::vector<te::Operation> order = te::topological_order(folding.outputs);
  for (const te::Operation& op : order) {
    EXPECT_NE(op.get(), w.op().get());
    EXPECT_NE(op.get(), scaled.op().get());
  }
  EXPECT_EQ(order.size(), 3u);  // x, the folded placeholder, y
  EXPECT_EQ(cache.kernels.size(), 1u);
  // The same stage on the same array again is the same folded array; on another array,
  // another one from the same kernel.
  StageFolding again = fold_constant_stages({y}, {{w.op().get(), &data}}, "test", cache);
  ASSERT_EQ(again.folded.size(), 1u);
  EXPECT_EQ(again.folded[0].data.get(), folding.folded[0].data.get());
  runtime::NDArray other = testing::random_array({4, 5}, 4);
  StageFolding apart = fold_constant_stages({y}, {{w.op().get(), &other}}, "test", cache);
  ASSERT_EQ(apart.folded.size(), 1u);
  EXPECT_NE(apart.folded[0].data.get(), folding.folded[0].data.get());
  EXPECT_FLOAT_EQ(apart.folded[0].data->data_as<float>()[7], 2.0f * other.data_as<float>()[7]);
  EXPECT_EQ(cache.kernels.size(), 1u);

  // Without constants nothing folds and the DAG is returned as it was.
  StageFolding none = fold_constant_stages({y}, {}, "test", cache);
  EXPECT_TRUE(none.folded.empty());
  EXPECT_EQ(none.outputs[0].op().get(), y.op().get());
}

TEST(FoldStages, SmallStagesThatReadNothingFold) {
  // A table of per-column values (a resampling's taps) is evaluated once; one far larger
  // than the data it serves is left to run time.
  te::Tensor x = te::placeholder({4, 8}, ir::DataType::Float(32), "x");
  te::Tensor table = te::compute(
      {8}, [&](te::Var c) { return ir::cast(ir::DataType::Float(32), c) * 0.5f; }, "table");
  te::Tensor y = te::compute(
      {4, 8}, [&](te::Var i, te::Var j) { return x(i, j) + table(j); }, "y");
  FoldCache cache;
  StageFolding folding = fold_constant_stages({y}, {}, "tables", cache);
  ASSERT_EQ(folding.folded.size(), 1u);
  for (int64_t c = 0; c < 8; ++c)
    EXPECT_FLOAT_EQ(folding.folded[0].data->data_as<float>()[c], 0.5f * static_cast<float>(c));

  te::Tensor big = te::compute(
      {1 << 16}, [&](te::Var c) { return ir::cast(ir::DataType::Float(32), c); }, "big");
  te::Tensor z = te::compute(
      {4, 8}, [&](te::Var i, te::Var j) { return x(i, j) + big(j); }, "z");
  EXPECT_TRUE(fold_constant_stages({z}, {}, "big", cache).folded.empty());
}

TEST(FoldStages, CompiledConvolutionStoresPackedWeightsOnly) {
  testing::TypedGraph t;
  graph::Value* x = t.input("x", {1, 3, 9, 9});
  graph::Value* w = t.constant("w", {5, 3, 3, 3}, 7);
  graph::Value* conv =
      t.node("Conv", {x, w}, {1, 5, 9, 9}, {{"pads", graph::Attribute::of_ints({1, 1, 1, 1})}});
  t.output(t.node("Relu", {conv}, {1, 5, 9, 9}));
  runtime::NDArray xv = testing::random_array({1, 3, 9, 9}, 8);
  std::vector<runtime::NDArray> expected = testing::run_unfused(t.graph, {&xv});
  CompiledModel compiled = compile_graph(t.graph);
  bool has_raw_weights = false;
  int64_t packed_bytes = 0;
  for (const runtime::PlanTensor& tensor : compiled.plan.tensors) {
    if (tensor.storage != runtime::Storage::Weight) continue;
    has_raw_weights |= tensor.name == "w";
    packed_bytes += tensor.nbytes();
  }
  EXPECT_FALSE(has_raw_weights);
  // Output channels padded to whole blocks: at least the original weights' size.
  EXPECT_GE(packed_bytes, 5 * 3 * 3 * 3 * 4);
  EXPECT_EQ(compiled.plan.weights_bytes % 64, 0);
  runtime::Model model = jit_model(std::move(compiled));
  testing::expect_close(model.run({&xv})[0], expected[0]);
}

TEST(FoldStages, ProductsSharingAWeightStoreItPackedOnce) {
  // Three products of one weight, as the steps of an unrolled recurrent cell: one packed
  // copy in the compiled model.
  testing::TypedGraph t;
  graph::Value* x = t.input("x", {2, 64});
  graph::Value* w = t.constant("w", {64, 64}, 5);
  graph::Value* h = x;
  for (int step = 0; step < 3; ++step)
    h = t.node("Tanh", {t.node("MatMul", {h, w}, {2, 64})}, {2, 64});
  t.output(h);
  runtime::NDArray xv = testing::random_array({2, 64}, 6);
  std::vector<runtime::NDArray> expected = testing::run_unfused(t.graph, {&xv});
  CompiledModel compiled = compile_graph(t.graph);
  EXPECT_LT(compiled.plan.weights_bytes, 2 * 64 * 64 * 4);
  runtime::Model model = jit_model(std::move(compiled));
  testing::expect_close(model.run({&xv})[0], expected[0]);
}

}  // namespace
}  // namespace tessel::compiler

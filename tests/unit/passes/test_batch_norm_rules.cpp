// fold_batch_norm: BatchNormalization after Conv or Gemm folded into the weights and bias;
// batch_norm_as_channel_affine: elsewhere, a per-channel Mul and Add.
#include "passes_test_util.h"

namespace tessel::passes {
namespace {

using namespace testing;

/// BatchNormalization(x) over `channels` with random parameters (positive variance).
graph::Value* batch_norm(TestGraph& t, graph::Value* x, int64_t channels,
                         Attributes attributes = {}) {
  return t.op("BatchNormalization", "bn",
              {x, t.random("gamma", {channels}, 0.5, 1.5), t.random("beta", {channels}),
               t.random("mean", {channels}), t.random("var", {channels}, 0.5, 2)},
              std::move(attributes));
}

Attributes conv_attributes() {
  return {{"kernel_shape", Attribute::of_ints({3, 3})}, {"pads", Attribute::of_ints({1, 1, 1, 1})}};
}

TEST(BatchNormRules, ConvWithBias) {
  TestGraph t;
  graph::Value* x = t.input("x", {1, 3, 6, 6});
  graph::Value* y =
      t.op("Conv", "conv", {x, t.random("w", {4, 3, 3, 3}), t.random("b", {4})}, conv_attributes());
  t.output(t.op("Relu", "r", {batch_norm(t, y, 4, {{"epsilon", Attribute::of_float(1e-3)}})}));
  expect_rewrite(t.g, R"(graph g
  input %x: float32[1, 3, 6, 6]
  const %w: float32[4, 3, 3, 3]
  const %b: float32[4]
  const %gamma: float32[4]
  const %beta: float32[4]
  const %mean: float32[4]
  const %var: float32[4]
  %conv = Conv(%x, %w, %b) {kernel_shape = [3, 3], pads = [1, 1, 1, 1]}
  %bn = BatchNormalization(%conv, %gamma, %beta, %mean, %var) {epsilon = 0.001}
  %r = Relu(%bn)
  output %r: float32[1, 4, 6, 6]
)",
                 R"(graph g
  input %x: float32[1, 3, 6, 6]
  const %bn.weight: float32[4, 3, 3, 3]
  const %bn.bias: float32[4]
  %bn = Conv(%x, %bn.weight, %bn.bias) {kernel_shape = [3, 3], pads = [1, 1, 1, 1]}
  %r = Relu(%bn)
  output %r: float32[1, 4, 6, 6]
)");
}

TEST(BatchNormRules, ConvWithoutBiasAsGraphOutput) {
  TestGraph t;
  graph::Value* x = t.input("x", {2, 2, 5, 5});
  graph::Value* y =
      t.op("Conv", "conv", {x, t.random("w", {6, 1, 3, 3})}, {{"group", Attribute::of_int(2)}});
  t.output(batch_norm(t, y, 6));
  graph::Graph rewritten = rewrite_and_fold(t.g);
  EXPECT_EQ(graph::to_string(rewritten), R"(graph g
  input %x: float32[2, 2, 5, 5]
  const %bn.weight: float32[6, 1, 3, 3]
  const %bn.shift: float32[6]
  %bn = Conv(%x, %bn.weight, %bn.shift) {group = 2}
  output %bn: float32[2, 6, 3, 3]
)");
  expect_same_results(t.g, rewritten);
}

TEST(BatchNormRules, GemmWithTransposedWeightsAndBias) {
  for (int64_t trans_b : {0, 1}) {
    TestGraph t;
    graph::Value* a = t.input("a", {3, 5});
    graph::Value* w = t.random("w", trans_b ? Shape{4, 5} : Shape{5, 4});
    graph::Value* y = t.op("Gemm", "gemm", {a, w, t.random("c", {4})},
                           {{"transB", Attribute::of_int(trans_b)},
                            {"alpha", Attribute::of_float(0.5)},
                            {"beta", Attribute::of_float(2.0)}});
    t.output(batch_norm(t, y, 4));
    graph::Graph rewritten = rewrite_and_fold(t.g);
    EXPECT_EQ(graph::to_string(rewritten),
              std::string("graph g\n"
                          "  input %a: float32[3, 5]\n"
                          "  const %bn.weight: float32[") +
                  (trans_b ? "4, 5" : "5, 4") +
                  "]\n"
                  "  const %bn.bias: float32[4]\n"
                  "  %bn = Gemm(%a, %bn.weight, %bn.bias) {alpha = 0.5, beta = 1, transB = " +
                  std::to_string(trans_b) +
                  "}\n"
                  "  output %bn: float32[3, 4]\n");
    expect_same_results(t.g, rewritten);
  }
}

TEST(BatchNormRules, NotFoldedWhenTheConvOutputIsReadElsewhereButAnAffine) {
  TestGraph t;
  graph::Value* x = t.input("x", {1, 3, 4, 4});
  graph::Value* y = t.op("Conv", "conv", {x, t.random("w", {3, 3, 1, 1})});
  t.output(batch_norm(t, y, 3));
  t.output(t.op("Relu", "other_use", {y}));
  graph::Graph rewritten = rewrite_and_fold(t.g);
  EXPECT_EQ(graph::to_string(rewritten), R"(graph g
  input %x: float32[1, 3, 4, 4]
  const %w: float32[3, 3, 1, 1]
  const %bn.scale: float32[1, 3, 1, 1]
  const %bn.offset: float32[1, 3, 1, 1]
  %conv = Conv(%x, %w)
  %bn.scaled = Mul(%conv, %bn.scale)
  %bn = Add(%bn.scaled, %bn.offset)
  %other_use = Relu(%conv)
  output %bn: float32[1, 3, 4, 4]
  output %other_use: float32[1, 3, 4, 4]
)");
  expect_same_results(t.g, rewritten);
}

TEST(BatchNormRules, AfterAConcatOrWithInputWeightsAnAffineOfAnyRank) {
  // DenseNet's normalisation of concatenated features; a Conv whose weights are an input;
  // a 3-d input (channels on axis 1 too).
  TestGraph t;
  graph::Value* x = t.input("x", {1, 3, 4, 4});
  graph::Value* joined = t.op("Concat", "joined", {x, x}, {{"axis", Attribute::of_int(1)}});
  t.output(batch_norm(t, joined, 6));
  graph::Value* w = t.input("w", {3, 3, 1, 1});
  t.output(t.op("BatchNormalization", "bn2",
                {t.op("Conv", "conv", {x, w}), t.random("g2", {3}, 0.5, 1.5), t.random("b2", {3}),
                 t.random("m2", {3}), t.random("v2", {3}, 0.5, 2)}));
  graph::Value* seq = t.input("seq", {2, 5, 7});
  t.output(t.op("BatchNormalization", "bn3",
                {seq, t.random("g3", {5}, 0.5, 1.5), t.random("b3", {5}), t.random("m3", {5}),
                 t.random("v3", {5}, 0.5, 2)}));
  graph::Graph rewritten = rewrite_and_fold(t.g);
  std::string text = graph::to_string(rewritten);
  EXPECT_EQ(text.find("BatchNormalization"), std::string::npos) << text;
  EXPECT_NE(text.find("const %bn3.scale: float32[1, 5, 1]"), std::string::npos) << text;
  expect_same_results(t.g, rewritten);
}

}  // namespace
}  // namespace tessel::passes

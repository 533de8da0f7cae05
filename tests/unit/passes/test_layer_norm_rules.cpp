// recognise_layer_norm, fold_scale_into_layer_norm, fold_bias_into_layer_norm: the ReduceMean
// form of layer normalisation (torch.onnx.export, opsets 13-16) becomes LayerNormalization.
#include "passes_test_util.h"

namespace tessel::passes {
namespace {

using namespace testing;

/// The core of nn.LayerNorm as exported: (x - mean) / sqrt(var + eps) over `axes`.
graph::Value* normalized(TestGraph& t, graph::Value* x, std::vector<int64_t> axes) {
  Attributes reduce = {{"axes", Attribute::of_ints(std::move(axes))}};
  graph::Value* mean = t.op("ReduceMean", "mean", {x}, reduce);
  graph::Value* d = t.op("Sub", "d", {x, mean});
  graph::Value* p = t.op("Pow", "p", {d, t.scalar("two", 2)});
  graph::Value* var = t.op("ReduceMean", "var", {p}, reduce);
  graph::Value* ve = t.op("Add", "ve", {var, t.scalar("eps", 1e-5)});
  return t.op("Div", "n", {d, t.op("Sqrt", "sd", {ve})});
}

TEST(LayerNormRules, TorchExportForm) {
  TestGraph t;
  graph::Value* x = t.input("x", {2, 3, 8});
  graph::Value* g = t.op("Mul", "g", {normalized(t, x, {-1}), t.random("gamma", {8})});
  t.output(t.op("Add", "y", {g, t.random("beta", {8})}));
  expect_rewrite(t.g, R"(graph g
  input %x: float32[2, 3, 8]
  const %two: float32[]
  const %eps: float32[]
  const %gamma: float32[8]
  const %beta: float32[8]
  %mean = ReduceMean(%x) {axes = [-1]}
  %d = Sub(%x, %mean)
  %p = Pow(%d, %two)
  %var = ReduceMean(%p) {axes = [-1]}
  %ve = Add(%var, %eps)
  %sd = Sqrt(%ve)
  %n = Div(%d, %sd)
  %g = Mul(%n, %gamma)
  %y = Add(%g, %beta)
  output %y: float32[2, 3, 8]
)",
                 R"(graph g
  input %x: float32[2, 3, 8]
  const %g.scale: float32[8]
  const %beta: float32[8]
  %y = LayerNormalization(%x, %g.scale, %beta) {axis = 2, epsilon = 1e-05}
  output %y: float32[2, 3, 8]
)");
}

TEST(LayerNormRules, SeveralTrailingAxesWithoutAffine) {
  TestGraph t;
  graph::Value* x = t.input("x", {2, 3, 4});
  t.output(t.op("Relu", "y", {normalized(t, x, {2, 1})}));
  graph::Graph rewritten = rewrite_and_fold(t.g);
  EXPECT_EQ(graph::to_string(rewritten), R"(graph g
  input %x: float32[2, 3, 4]
  const %n.c: float32[3, 4]
  %n = LayerNormalization(%x, %n.c) {axis = 1, epsilon = 1e-05}
  %y = Relu(%n)
  output %y: float32[2, 3, 4]
)");
  expect_same_results(t.g, rewritten);
}

TEST(LayerNormRules, LeadingAxesStay) {
  TestGraph t;
  graph::Value* x = t.input("x", {2, 3, 4});
  t.output(normalized(t, x, {0}));
  graph::Graph rewritten = rewrite_and_fold(t.g);
  EXPECT_EQ(graph::to_string(rewritten).find("LayerNormalization"), std::string::npos);
}

TEST(LayerNormRules, MeanReadElsewhereStays) {
  TestGraph t;
  graph::Value* x = t.input("x", {2, 4});
  t.output(normalized(t, x, {-1}));
  t.output(t.g.find_value("mean"));
  graph::Graph rewritten = rewrite_and_fold(t.g);
  EXPECT_EQ(graph::to_string(rewritten).find("LayerNormalization"), std::string::npos);
}

}  // namespace
}  // namespace tessel::passes

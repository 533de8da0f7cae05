// fuse_matmul_bias, fold_shift_into_linear, fold_scale_into_linear: what follows a linear
// operator absorbed into it.
#include "passes_test_util.h"

namespace tessel::passes {
namespace {

using namespace testing;

TEST(LinearRules, MatMulBiasOfMatricesBecomesGemm) {
  TestGraph t;
  graph::Value* x = t.input("x", {3, 5});
  graph::Value* m = t.op("MatMul", "m", {x, t.random("w", {5, 4})});
  t.output(t.op("Add", "y", {t.random("b", {4}), m}));
  expect_rewrite(t.g, R"(graph g
  input %x: float32[3, 5]
  const %w: float32[5, 4]
  const %b: float32[4]
  %m = MatMul(%x, %w)
  %y = Add(%b, %m)
  output %y: float32[3, 4]
)",
                 R"(graph g
  input %x: float32[3, 5]
  const %w: float32[5, 4]
  const %b: float32[4]
  %y = Gemm(%x, %w, %b)
  output %y: float32[3, 4]
)");
}

TEST(LinearRules, BatchedMatMulBiasBecomesMatMulAdd) {
  // nn.Linear on [2, 3, 8] as exported: MatMul by the transposed weight, Add of the bias.
  TestGraph t;
  graph::Value* x = t.input("x", {2, 3, 8});
  graph::Value* wt =
      t.op("Transpose", "wt", {t.random("w", {4, 8})}, {{"perm", Attribute::of_ints({1, 0})}});
  graph::Value* m = t.op("MatMul", "m", {x, wt});
  t.output(t.op("Add", "y", {m, t.random("b", {1, 1, 4})}));
  graph::Graph rewritten = rewrite_and_fold(t.g);
  EXPECT_EQ(graph::to_string(rewritten), R"(graph g
  input %x: float32[2, 3, 8]
  const %wt: float32[8, 4]
  const %y.bias: float32[4]
  %y = tessel.MatMulAdd(%x, %wt, %y.bias)
  output %y: float32[2, 3, 4]
)");
  expect_same_results(t.g, rewritten);
}

TEST(LinearRules, BiasAlongAnotherAxisStays) {
  TestGraph t;
  graph::Value* x = t.input("x", {3, 5});
  graph::Value* m = t.op("MatMul", "m", {x, t.random("w", {5, 4})});
  t.output(t.op("Add", "y", {m, t.random("b", {3, 1})}));
  EXPECT_NE(graph::to_string(rewrite_and_fold(t.g)).find("MatMul("), std::string::npos);
}

TEST(LinearRules, ConvScaleAndShiftFolded) {
  TestGraph t;
  graph::Value* x = t.input("x", {1, 2, 5, 5});
  graph::Value* c = t.op("Conv", "conv", {x, t.random("w", {3, 2, 3, 3}), t.random("b", {3})});
  graph::Value* s = t.op("Mul", "s", {c, t.random("scale", {3, 1, 1})});
  graph::Value* a = t.op("Add", "a", {t.random("shift", {1, 3, 1, 1}), s});
  t.output(t.op("Relu", "y", {t.op("Mul", "twice", {a, t.scalar("two", 2)})}));
  expect_rewrite(t.g, R"(graph g
  input %x: float32[1, 2, 5, 5]
  const %w: float32[3, 2, 3, 3]
  const %b: float32[3]
  const %scale: float32[3, 1, 1]
  const %shift: float32[1, 3, 1, 1]
  const %two: float32[]
  %conv = Conv(%x, %w, %b)
  %s = Mul(%conv, %scale)
  %a = Add(%shift, %s)
  %twice = Mul(%a, %two)
  %y = Relu(%twice)
  output %y: float32[1, 3, 3, 3]
)",
                 R"(graph g
  input %x: float32[1, 2, 5, 5]
  const %twice.weight: float32[3, 2, 3, 3]
  const %twice.bias: float32[3]
  %twice = Conv(%x, %twice.weight, %twice.bias)
  %y = Relu(%twice)
  output %y: float32[1, 3, 3, 3]
)");
}

TEST(LinearRules, GemmAndMatMulScaledPerColumn) {
  TestGraph t;
  graph::Value* x = t.input("x", {3, 5});
  graph::Value* g = t.op("Gemm", "gemm", {x, t.random("w", {4, 5}), t.random("c", {4})},
                         {{"transB", Attribute::of_int(1)}, {"beta", Attribute::of_float(0.5)}});
  graph::Value* gs = t.op("Mul", "gs", {g, t.random("col", {4})});
  graph::Value* m = t.op("MatMul", "m", {gs, t.random("w2", {4, 2})});
  t.output(t.op("Mul", "y", {m, t.scalar("k", 3)}));
  graph::Graph rewritten = rewrite_and_fold(t.g);
  EXPECT_EQ(graph::to_string(rewritten), R"(graph g
  input %x: float32[3, 5]
  const %gs.weight: float32[4, 5]
  const %gs.bias: float32[4]
  const %y.weight: float32[4, 2]
  %gs = Gemm(%x, %gs.weight, %gs.bias) {beta = 1, transB = 1}
  %y = MatMul(%gs, %y.weight)
  output %y: float32[3, 2]
)");
  expect_same_results(t.g, rewritten);
}

TEST(LinearRules, ScaleVaryingAlongAnotherAxisStays) {
  TestGraph t;
  graph::Value* x = t.input("x", {1, 2, 4, 4});
  graph::Value* c = t.op("Conv", "conv", {x, t.random("w", {3, 2, 1, 1})});
  t.output(t.op("Mul", "y", {c, t.random("rows", {4, 1})}));
  EXPECT_NE(graph::to_string(rewrite_and_fold(t.g)).find("Mul("), std::string::npos);
}

}  // namespace
}  // namespace tessel::passes

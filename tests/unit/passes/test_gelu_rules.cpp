// recognise_gelu: the Erf form of GELU as torch.onnx.export writes it, and its variants,
// becomes one Gelu; near misses stay.
#include <cmath>

#include "passes_test_util.h"

namespace tessel::passes {
namespace {

using namespace testing;

TEST(GeluRules, TorchExportForm) {
  // Div(x, 1.4142135) -> Erf -> Add 1 -> Mul x -> Mul 0.5, as exported for nn.GELU().
  TestGraph t;
  graph::Value* x = t.input("x", {2, 8});
  graph::Value* d = t.op("Div", "d", {x, t.scalar("sqrt2", 1.4142135)});
  graph::Value* e = t.op("Erf", "e", {d});
  graph::Value* a = t.op("Add", "a", {e, t.scalar("one", 1)});
  graph::Value* m = t.op("Mul", "m", {x, a});
  t.output(t.op("Mul", "y", {m, t.scalar("half", 0.5)}));
  expect_rewrite(t.g, R"(graph g
  input %x: float32[2, 8]
  const %sqrt2: float32[]
  const %one: float32[]
  const %half: float32[]
  %d = Div(%x, %sqrt2)
  %e = Erf(%d)
  %a = Add(%e, %one)
  %m = Mul(%x, %a)
  %y = Mul(%m, %half)
  output %y: float32[2, 8]
)",
                 R"(graph g
  input %x: float32[2, 8]
  %y = Gelu(%x)
  output %y: float32[2, 8]
)");
}

TEST(GeluRules, HalfFirstAndMulByReciprocal) {
  // (0.5 * x) * (1 + erf(x * 0.70710678)), the factors in another order.
  TestGraph t;
  graph::Value* x = t.input("x", {3, 5});
  graph::Value* h = t.op("Mul", "h", {t.scalar("half", 0.5), x});
  graph::Value* s = t.op("Mul", "s", {x, t.scalar("inv_sqrt2", std::sqrt(0.5))});
  graph::Value* a = t.op("Add", "a", {t.scalar("one", 1), t.op("Erf", "e", {s})});
  t.output(t.op("Mul", "y", {h, a}));
  graph::Graph rewritten = rewrite_and_fold(t.g);
  EXPECT_EQ(graph::to_string(rewritten), R"(graph g
  input %x: float32[3, 5]
  %y = Gelu(%x)
  output %y: float32[3, 5]
)");
  expect_same_results(t.g, rewritten);
}

TEST(GeluRules, NearMissesStay) {
  for (double divisor : {1.5, 1.4142135}) {
    TestGraph t;
    graph::Value* x = t.input("x", {4});
    graph::Value* other = t.input("other", {4});
    graph::Value* d = t.op("Div", "d", {divisor == 1.5 ? x : other, t.scalar("c", divisor)});
    graph::Value* a = t.op("Add", "a", {t.op("Erf", "e", {d}), t.scalar("one", 1)});
    graph::Value* m = t.op("Mul", "m", {x, a});
    t.output(t.op("Mul", "y", {m, t.scalar("half", 0.5)}));
    graph::Graph rewritten = rewrite_and_fold(t.g);
    EXPECT_EQ(graph::to_string(rewritten).find("Gelu"), std::string::npos) << divisor;
  }
}

TEST(GeluRules, GeluOperatorMatchesTheFormula) {
  TestGraph t;
  graph::Value* x = t.input("x", {64});
  t.output(t.op("Gelu", "y", {x}, {}, 20));
  std::vector<runtime::NDArray> inputs = random_inputs(t.g);
  runtime::NDArray y = std::move(run_graph(t.g, inputs)[0]);
  for (int64_t k = 0; k < 64; ++k) {
    double v = element(inputs[0], k);
    EXPECT_NEAR(element(y, k), 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))), 1e-6);
  }
  TestGraph tanh_form;
  graph::Value* x2 = tanh_form.input("x", {64});
  tanh_form.output(
      tanh_form.op("Gelu", "y", {x2}, {{"approximate", Attribute::of_string("tanh")}}, 20));
  runtime::NDArray y2 = std::move(run_graph(tanh_form.g, inputs)[0]);
  for (int64_t k = 0; k < 64; ++k) {
    double v = element(inputs[0], k);
    double expected = 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
    EXPECT_NEAR(element(y2, k), expected, 1e-6);
  }
}

}  // namespace
}  // namespace tessel::passes

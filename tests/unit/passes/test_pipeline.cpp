// run_pipeline and default_pipeline: a small model through every pass (types complete,
// patterns recognised, same results), and the driver's options.
#include <sstream>

#include "passes/pipeline.h"
#include "passes_test_util.h"

namespace tessel::passes {
namespace {

using namespace testing;

/// A transformer-like block and a conv block, written as exporters write them.
TestGraph small_model() {
  TestGraph t("model");
  graph::Value* x = t.input("x", {2, 3, 8});
  // LayerNorm in the ReduceMean form.
  Attributes last = {{"axes", Attribute::of_ints({-1})}};
  graph::Value* mean = t.op("ReduceMean", "mean", {x}, last);
  graph::Value* d = t.op("Sub", "d", {x, mean});
  graph::Value* var = t.op("ReduceMean", "var", {t.op("Pow", "p", {d, t.scalar("two", 2)})}, last);
  graph::Value* sd = t.op("Sqrt", "sd", {t.op("Add", "ve", {var, t.scalar("eps", 1e-5)})});
  graph::Value* n = t.op("Div", "n", {d, sd});
  graph::Value* ln =
      t.op("Add", "ln", {t.op("Mul", "g", {n, t.random("gamma", {8})}), t.random("beta", {8})});
  // Linear, GELU (Erf form), Linear, residual.
  graph::Value* h = t.op(
      "Add", "h", {t.op("MatMul", "mm1", {ln, t.random("w1", {8, 16})}), t.random("b1", {16})});
  graph::Value* e = t.op("Erf", "erf", {t.op("Div", "hd", {h, t.scalar("sqrt2", 1.4142135)})});
  graph::Value* gelu = t.op(
      "Mul", "gelu",
      {t.op("Mul", "hm", {h, t.op("Add", "e1", {e, t.scalar("one", 1)})}), t.scalar("half", 0.5)});
  graph::Value* dropped = t.op("Dropout", "drop", {gelu});
  graph::Value* o = t.op(
      "Add", "o", {t.op("MatMul", "mm2", {dropped, t.random("w2", {16, 8})}), t.random("b2", {8})});
  graph::Value* res = t.op("Add", "res", {x, t.op("Identity", "id", {o})});
  // Reshape to an image through a shape computation, conv, batch norm, relu.
  graph::Value* batch =
      t.op("Gather", "batch", {t.op("Shape", "shape", {res}), t.ints("zero", {0})});
  graph::Value* target =
      t.op("Concat", "target", {batch, t.ints("chw", {1, 6, 4})}, {{"axis", Attribute::of_int(0)}});
  graph::Value* img = t.op("Reshape", "img", {res, target});
  graph::Value* conv = t.op("Conv", "conv", {img, t.random("cw", {2, 1, 3, 3})},
                            {{"pads", Attribute::of_ints({1, 1, 1, 1})}});
  graph::Value* bn = t.op("BatchNormalization", "bn",
                          {conv, t.random("bg", {2}, 0.5, 1.5), t.random("bb", {2}),
                           t.random("bm", {2}), t.random("bv", {2}, 0.5, 2)});
  t.output(t.op("Relu", "y", {bn}));
  return t;
}

TEST(Pipeline, DefaultPipelineOnASmallModel) {
  TestGraph t = small_model();
  graph::Graph optimized = run_pipeline(t.g, default_pipeline(target::host()));
  EXPECT_EQ(graph::to_string(optimized), R"(graph model
  input %x: float32[2, 3, 8]
  const %g.scale: float32[8]
  const %beta: float32[8]
  const %w1: float32[8, 16]
  const %b1: float32[16]
  const %w2: float32[16, 8]
  const %b2: float32[8]
  const %target: int64[4]
  const %bn.weight: float32[2, 1, 3, 3]
  const %bn.shift: float32[2]
  %ln = LayerNormalization(%x, %g.scale, %beta) {axis = 2, epsilon = 1e-05}
  %h = tessel.MatMulAdd(%ln, %w1, %b1)
  %gelu = Gelu(%h)
  %o = tessel.MatMulAdd(%gelu, %w2, %b2)
  %res = Add(%x, %o)
  %img = Reshape(%res, %target)
  %bn = Conv(%img, %bn.weight, %bn.shift) {pads = [1, 1, 1, 1]}
  %y = Relu(%bn)
  output %y: float32[2, 2, 6, 4]
)");
  for (const auto& value : optimized.values())
    EXPECT_TRUE(value->type.has_static_shape()) << value->name;
  expect_same_results(t.g, optimized);
}

TEST(Pipeline, PrintsTimesAndStops) {
  TestGraph t;
  graph::Value* x = t.input("x", {2});
  t.output(t.op("Relu", "y", {t.op("Identity", "i", {x})}));
  std::vector<Pass> passes = default_pipeline(target::host());

  std::ostringstream printed, timing;
  PipelineOptions options;
  options.print_after_each = &printed;
  options.timing = &timing;
  run_pipeline(t.g, passes, options);
  EXPECT_NE(printed.str().find("// after fold_constants\ngraph g\n"), std::string::npos);
  EXPECT_NE(printed.str().find("// after eliminate_dead_code: unchanged\n"), std::string::npos);
  EXPECT_NE(
      printed.str().find("// after rewrite\ngraph g\n  input %x: float32[2]\n  %y = Relu(%x)\n"),
      std::string::npos)
      << printed.str();
  int lines = 0;
  for (char c : timing.str()) lines += c == '\n';
  EXPECT_EQ(lines, static_cast<int>(passes.size()));

  std::ostringstream only_rewrite;
  options = {};
  options.print_after_each = &only_rewrite;
  options.print_after = "rewrite";
  run_pipeline(t.g, passes, options);
  EXPECT_EQ(only_rewrite.str().rfind("// after rewrite\n", 0), 0u) << only_rewrite.str();
  EXPECT_EQ(only_rewrite.str().find("fold_constants"), std::string::npos);

  options = {};
  options.stop_after = "eliminate_dead_code";
  graph::Graph stopped = run_pipeline(t.g, passes, options);
  EXPECT_NE(graph::to_string(stopped).find("Identity"), std::string::npos);

  options.stop_after = "no_such_pass";
  EXPECT_NE(error_of([&] { run_pipeline(t.g, passes, options); }).find("'no_such_pass'"),
            std::string::npos);
}

TEST(Pipeline, VerifiesAfterEachPass) {
  TestGraph t;
  t.output(t.op("Relu", "y", {t.input("x", {2})}));
  Pass broken{"broken", [](const graph::Graph&) {
                graph::Graph g;
                g.add_output(g.add_value("lost", {}));
                return g;
              }};
  EXPECT_NE(error_of([&] { run_pipeline(t.g, {broken}); }).find("'lost' is never computed"),
            std::string::npos);
  PipelineOptions unchecked;
  unchecked.verify = false;
  EXPECT_EQ(run_pipeline(t.g, {broken}, unchecked).outputs()[0]->name, "lost");
}

}  // namespace
}  // namespace tessel::passes

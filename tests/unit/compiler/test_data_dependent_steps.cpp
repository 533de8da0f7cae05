// Data-dependent operators compiled: NonZero after a kernel becomes a runtime step whose
// output takes the extent the run finds (against a count written here), NonZero of a
// constant folds away at compile time, and a kernel reading a value whose extent only the
// run knows is refused with an error naming both nodes.
#include <gtest/gtest.h>

#include "compiler/compile_model.h"
#include "support/error.h"
#include "unit/compiler/compiler_test_util.h"

namespace tessel::compiler {
namespace {

using testing::f32;

/// y = NonZero(Relu(x)) with x: [rows, cols]; with `reader`, the model's output is
/// Cast(y) instead, a kernel reading y.
graph::Graph nonzero_model(int64_t rows, int64_t cols, bool reader) {
  graph::Graph g;
  g.name = "nonzero";
  g.opsets = {{"", 17}};
  graph::Value* x = g.add_value("x", f32({rows, cols}));
  g.add_input(x);
  auto add = [&](const std::string& op, graph::Value* in, const std::string& out,
                 std::map<std::string, graph::Attribute> attributes = {}) {
    graph::Node n;
    n.name = op;
    n.op_type = op;
    n.opset = 17;
    n.inputs = {in};
    n.attributes = std::move(attributes);
    n.outputs = {g.add_value(out, {})};
    g.add_node(std::move(n));
    return g.nodes().back()->outputs[0];
  };
  graph::Value* y = add("NonZero", add("Relu", x, "r"), "y");
  if (reader) y = add("Cast", y, "yf", {{"to", graph::Attribute::of_int(1)}});
  g.add_output(y);
  return g;
}

TEST(DataDependentSteps, NonZeroAfterAKernelTakesTheExtentTheRunFinds) {
  const int64_t rows = 3, cols = 5;
  CompiledModel compiled = compile_model(nonzero_model(rows, cols, false), {f32({rows, cols})});
  int nonzero_steps = 0;
  for (const runtime::PlanStep& step : compiled.plan.steps)
    nonzero_steps += step.kind == runtime::StepKind::NonZero;
  EXPECT_EQ(nonzero_steps, 1);
  runtime::Model model = jit_model(std::move(compiled));
  for (uint32_t seed : {1u, 2u, 3u}) {
    runtime::NDArray x = testing::random_array({rows, cols}, seed);
    std::vector<std::vector<int64_t>> expected(2);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        if (x.data_as<float>()[i * cols + j] > 0) {
          expected[0].push_back(i);
          expected[1].push_back(j);
        }
    std::vector<runtime::NDArray> out = model.run({&x});
    ASSERT_EQ(out.size(), 1u);
    int64_t count = static_cast<int64_t>(expected[0].size());
    ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{2, count})) << "seed " << seed;
    for (int64_t d = 0; d < 2; ++d)
      for (int64_t k = 0; k < count; ++k)
        EXPECT_EQ(out[0].data_as<int64_t>()[d * count + k], expected[d][k]) << d << ", " << k;
  }
  // All zeros: an empty result, not the capacity.
  runtime::NDArray zeros = runtime::NDArray::zeros({rows, cols}, runtime::DType::Float(32));
  EXPECT_EQ(model.run({&zeros})[0].shape(), (std::vector<int64_t>{2, 0}));
}

TEST(DataDependentSteps, NonZeroOfAConstantFolds) {
  graph::Graph g;
  g.name = "folded";
  g.opsets = {{"", 17}};
  runtime::NDArray c = runtime::NDArray::zeros({2, 3}, runtime::DType::Float(32));
  c.data_as<float>()[1] = 4.0f;
  c.data_as<float>()[5] = -1.0f;
  graph::Value* constant = g.add_constant("c", std::make_shared<const runtime::NDArray>(std::move(c)));
  graph::Value* x = g.add_value("x", f32({2}));
  g.add_input(x);
  graph::Node nonzero;
  nonzero.name = "nz";
  nonzero.op_type = "NonZero";
  nonzero.opset = 17;
  nonzero.inputs = {constant};
  nonzero.outputs = {g.add_value("nz", {})};
  g.add_node(std::move(nonzero));
  graph::Node cast;  // a kernel may read it: its extent is known once folded
  cast.name = "cast";
  cast.op_type = "Cast";
  cast.opset = 17;
  cast.attributes["to"] = graph::Attribute::of_int(1);
  cast.inputs = {g.nodes().back()->outputs[0]};
  cast.outputs = {g.add_value("nzf", {})};
  g.add_node(std::move(cast));
  graph::Node add;
  add.name = "add";
  add.op_type = "Add";
  add.opset = 17;
  add.inputs = {g.nodes().back()->outputs[0], x};
  add.outputs = {g.add_value("y", {})};
  g.add_node(std::move(add));
  g.add_output(g.nodes().back()->outputs[0]);
  CompiledModel compiled = compile_model(g, {f32({2})});
  for (const runtime::PlanStep& step : compiled.plan.steps)
    EXPECT_NE(step.kind, runtime::StepKind::NonZero);
  runtime::Model model = jit_model(std::move(compiled));
  runtime::NDArray in({2}, runtime::DType::Float(32));
  in.data_as<float>()[0] = 10.0f;
  in.data_as<float>()[1] = 20.0f;
  std::vector<runtime::NDArray> out = model.run({&in});
  // The nonzero elements are (0, 1) and (1, 2): rows [0, 1] and [1, 2], plus x per column.
  ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2}));
  const float expected[] = {10, 21, 11, 22};
  for (int k = 0; k < 4; ++k) EXPECT_EQ(out[0].data_as<float>()[k], expected[k]) << k;
}

TEST(DataDependentSteps, AKernelReadingADynamicExtentIsRefused) {
  try {
    compile_model(nonzero_model(2, 4, true), {f32({2, 4})});
    FAIL() << "compiled";
  } catch (const CompileError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("Cast"), std::string::npos) << m;
    EXPECT_NE(m.find("reads 'y', whose extent"), std::string::npos) << m;
    EXPECT_NE(m.find("NonZero"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace tessel::compiler

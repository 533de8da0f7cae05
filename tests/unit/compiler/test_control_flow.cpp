// Control flow compiled: a Loop run against the same arithmetic written out in C++, the plan
// it becomes (no kernel outside the body's, a loop test and a jump back), values that live
// across the loop kept apart from the body's, a Loop slicing at its iteration number
// unrolled, and the errors of bad loops and branches.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "compiler/compile_model.h"
#include "compiler/graph_executor.h"
#include "runtime/error.h"
#include "support/error.h"
#include "unit/compiler/compiler_test_util.h"

namespace tessel::compiler {
namespace {

using graph::TensorType;
using testing::f32;
using testing::loop_model;
using testing::random_array;

TEST(ControlFlow, LoopMatchesTheArithmeticWrittenOut) {
  const int64_t rows = 3, trips = 5;
  graph::Graph g = loop_model(rows, trips);
  CompiledModel compiled = compile_model(g, {f32({rows, 8})});
  int loop_tests = 0, kernels = 0;
  for (const runtime::PlanStep& step : compiled.plan.steps) {
    loop_tests += step.kind == runtime::StepKind::LoopTest;
    kernels += step.kind == runtime::StepKind::Kernel;
  }
  EXPECT_EQ(loop_tests, 1);
  EXPECT_GE(kernels, 1);
  EXPECT_EQ(compiled.bodies.size(), 1u);
  runtime::Model model = jit_model(std::move(compiled));
  runtime::NDArray x = random_array({rows, 8}, 11);
  std::vector<runtime::NDArray> out = model.run({&x});
  ASSERT_EQ(out.size(), 2u);
  ASSERT_EQ(out[1].shape(), (std::vector<int64_t>{trips, rows, 8}));
  runtime::NDArray w = random_array({8}, 3), one = random_array({1}, 7);  // as in the model
  std::vector<float> h(x.data_as<float>(), x.data_as<float>() + rows * 8);
  for (int64_t t = 0; t < trips; ++t) {
    for (int64_t e = 0; e < rows * 8; ++e) {
      EXPECT_NEAR(out[1].data_as<float>()[t * rows * 8 + e], h[e] + one.data_as<float>()[0], 1e-5)
          << "trip " << t << " element " << e;
      h[e] = std::tanh(h[e] * w.data_as<float>()[e % 8] + h[e]);
    }
  }
  for (int64_t e = 0; e < rows * 8; ++e)
    EXPECT_NEAR(out[0].data_as<float>()[e], h[e], 1e-5) << "element " << e;
}

/// Loop(M, acc = 0[1]) whose body adds x[i : i + 1] of the main graph's x: [5] to acc and
/// scans acc: a Slice at the iteration number, which only an unrolled body knows. M is a
/// graph input when `trips` is not given.
graph::Graph slicing_loop(std::optional<int64_t> trips) {
  graph::Graph body;
  body.name = "slice_at_i";
  graph::Value* i = body.add_value("i", TensorType::of(ir::DataType::Int(64), {}));
  graph::Value* cond = body.add_value("cond", TensorType::of(ir::DataType::Bool(), {}));
  graph::Value* acc = body.add_value("acc", f32({1}));
  graph::Value* x_inside = body.add_value("x", f32({5}));
  for (graph::Value* v : {i, cond, acc, x_inside}) body.add_input(v);
  body.captured_inputs = 1;
  auto ints = [&](const std::string& name, int64_t v) {
    runtime::NDArray a({1}, runtime::DType::Int(64));
    *a.data_as<int64_t>() = v;
    return body.add_constant(name, std::make_shared<const runtime::NDArray>(std::move(a)));
  };
  graph::Value* start = testing::add_untyped_node(body, "Unsqueeze", {i, ints("axis0", 0)})[0];
  graph::Value* end = testing::add_untyped_node(body, "Add", {start, ints("one", 1)})[0];
  graph::Value* piece = testing::add_untyped_node(body, "Slice", {x_inside, start, end})[0];
  graph::Value* sum = testing::add_untyped_node(body, "Add", {acc, piece})[0];
  body.add_output(testing::add_untyped_node(body, "Identity", {cond})[0]);
  body.add_output(sum);
  body.add_output(testing::add_untyped_node(body, "Identity", {sum})[0]);
  graph::Graph g;
  g.name = "slicing_loop";
  g.opsets = {{"", 17}};
  graph::Value* x = g.add_value("x", f32({5}));
  g.add_input(x);
  graph::Value* m;
  if (trips) {
    m = g.add_constant("M", testing::int64_scalar(*trips));
  } else {
    m = g.add_value("M", TensorType::of(ir::DataType::Int(64), {}));
    g.add_input(m);
  }
  graph::Value* zero =
      g.add_constant("zero", std::make_shared<const runtime::NDArray>(
                                 runtime::NDArray::zeros({1}, runtime::DType::Float(32))));
  std::vector<graph::Value*> outs = testing::add_untyped_node(
      g, "Loop", {m, nullptr, zero, x},
      {{"body", graph::Attribute::of_graph(std::make_shared<const graph::Graph>(std::move(body)))}},
      2);
  g.add_output(outs[0]);
  g.add_output(outs[1]);
  return g;
}

/// Checks the slicing loop's outputs for `trips` trips over x: the sum and the running sums.
void expect_running_sums(const std::vector<runtime::NDArray>& out, const runtime::NDArray& x,
                         int64_t trips) {
  ASSERT_EQ(out[1].shape(), (std::vector<int64_t>{trips, 1}));
  float sum = 0;
  for (int64_t t = 0; t < trips; ++t) {
    sum += x.data_as<float>()[t];
    EXPECT_FLOAT_EQ(out[1].data_as<float>()[t], sum) << "trip " << t;
  }
  EXPECT_FLOAT_EQ(out[0].data_as<float>()[0], sum);
}

TEST(ControlFlow, ALoopSlicingAtItsIterationIsUnrolledForAKnownTripCount) {
  runtime::NDArray x = random_array({5}, 12);
  for (int64_t trips : {1, 4}) {
    runtime::Model model = jit_model(compile_model(slicing_loop(trips), {f32({5})}));
    expect_running_sums(model.run({&x}), x, trips);
  }
  graph::Graph runtime_trips = slicing_loop(std::nullopt);
  GraphExecutor executor(runtime_trips);
  EXPECT_EQ(executor.value_dependent_inputs(), (std::vector<bool>{false, true}));
  for (int64_t trips : {3, 5}) {
    runtime::NDArray m = runtime::NDArray::zeros({}, runtime::DType::Int(64));
    *m.data_as<int64_t>() = trips;
    expect_running_sums(executor.run({&x, &m}), x, trips);
  }
  try {
    compile_model(slicing_loop(std::nullopt),
                  {f32({5}), TensorType::of(ir::DataType::Int(64), {})});
    ADD_FAILURE() << "a run-time trip count compiled";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("must be known at compile time"), std::string::npos)
        << e.what();
  }
}

TEST(ControlFlow, ZeroTripsPassTheInitialValuesThrough) {
  graph::Graph g = loop_model(2, 0);
  runtime::Model model = jit_model(compile_model(g, {f32({2, 8})}));
  runtime::NDArray x = random_array({2, 8}, 5);
  std::vector<runtime::NDArray> out = model.run({&x});
  EXPECT_EQ(out[1].shape(), (std::vector<int64_t>{0, 2, 8}));
  for (int64_t e = 0; e < 16; ++e) EXPECT_EQ(out[0].data_as<float>()[e], x.data_as<float>()[e]);
}

/// y = If(cond) with cond a constant: then_branch Relu(x), else_branch `else_op`(x), both
/// reading the main graph's x: [2, 8]. An else_op "Reshape" reshapes x to 7 elements,
/// which no typing of that branch survives.
graph::Graph constant_if_model(bool cond, const std::string& else_op) {
  auto branch = [](const std::string& op) {
    testing::TypedGraph b;
    b.graph.name = op;
    graph::Value* x = b.input("x", {2, 8});
    b.graph.captured_inputs = 1;
    b.output(op == "Reshape" ? b.node(op, {x, b.ints("shape", {7})}, {7})
                             : b.node(op, {x}, {2, 8}));
    return std::make_shared<const graph::Graph>(std::move(b.graph));
  };
  graph::Graph g;
  g.name = "if";
  graph::Value* x = g.add_value("x", f32({2, 8}));
  g.add_input(x);
  auto flag =
      std::make_shared<runtime::NDArray>(runtime::NDArray::zeros({}, runtime::DType::Bool()));
  *static_cast<uint8_t*>(flag->data()) = cond;
  graph::Node node;
  node.name = "if";
  node.op_type = "If";
  node.opset = 17;
  node.attributes["then_branch"] = graph::Attribute::of_graph(branch("Relu"));
  node.attributes["else_branch"] = graph::Attribute::of_graph(branch(else_op));
  node.inputs = {g.add_constant("cond", flag), x};
  node.outputs = {g.add_value("y", {})};
  g.add_node(std::move(node));
  g.add_output(g.nodes().back()->outputs[0]);
  return g;
}

TEST(ControlFlow, AnIfOnAConstantBecomesItsTakenBranch) {
  runtime::NDArray x = random_array({2, 8}, 9);
  for (bool cond : {true, false}) {
    // The branch not taken is never typed: a Reshape to 7 elements of x's 16 would fail.
    CompiledModel compiled =
        compile_model(constant_if_model(cond, cond ? "Reshape" : "Neg"), {f32({2, 8})});
    for (const runtime::PlanStep& step : compiled.plan.steps)
      EXPECT_EQ(step.kind, runtime::StepKind::Kernel) << "cond " << cond;
    EXPECT_TRUE(compiled.bodies.empty());
    runtime::Model model = jit_model(std::move(compiled));
    std::vector<runtime::NDArray> out = model.run({&x});
    for (int64_t e = 0; e < 16; ++e) {
      float v = x.data_as<float>()[e];
      EXPECT_EQ(out[0].data_as<float>()[e], cond ? std::max(v, 0.0f) : -v) << e;
    }
  }
}

void expect_compile_error(const graph::Graph& g, const TensorType& input, const std::string& text) {
  try {
    compile_model(g, {input});
    ADD_FAILURE() << "no error; expected one containing: " << text;
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(ControlFlow, AbsurdTripCountsAreRefused) {
  expect_compile_error(loop_model(2, int64_t{1} << 40), f32({2, 8}),
                       "the trip count 1099511627776 is absurd for a loop without a condition");
  expect_compile_error(loop_model(2, -3), f32({2, 8}), "the trip count -3 is negative");
}

TEST(ControlFlow, CarriedValuesMustKeepTheirType) {
  expect_compile_error(loop_model(2, 4, true), f32({2, 8}),
                       "loop-carried value 0 out of the body has type float32[]");
}

TEST(ControlFlow, ALoopStoppingEarlyCannotFillItsScanOutputs) {
  graph::Graph g = loop_model(2, 4, false, true);
  runtime::Model model =
      jit_model(compile_model(g, {f32({2, 8}), TensorType::of(ir::DataType::Bool(), {})}));
  runtime::NDArray x = random_array({2, 8}, 5);
  runtime::NDArray go = runtime::NDArray::zeros({}, runtime::DType::Bool());
  *static_cast<uint8_t*>(go.data()) = 1;
  EXPECT_EQ(model.run({&x, &go})[1].shape(), (std::vector<int64_t>{4, 2, 8}));
  *static_cast<uint8_t*>(go.data()) = 0;
  try {
    model.run({&x, &go});
    ADD_FAILURE() << "a loop with scan outputs ran fewer trips without an error";
  } catch (const runtime::Error& e) {
    EXPECT_NE(std::string(e.what()).find("the loop stopped after 0 of its 4 trips"),
              std::string::npos)
        << e.what();
  }
}

TEST(ControlFlow, ANodeRunAloneCannotTypeItsBody) {
  graph::Graph g = loop_model(2, 4);
  runtime::NDArray x = random_array({2, 8}, 5);
  try {
    testing::run_unfused(g, {&x});
    ADD_FAILURE() << "the reference executor ran a Loop";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("its bodies are typed by the compiler's graph passes"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tessel::compiler

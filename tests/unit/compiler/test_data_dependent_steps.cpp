// Data-dependent operators compiled: NonZero after a kernel becomes a runtime step whose
// output takes the extent the run finds (against a count written here), Compress and TopK
// take their condition and k at run time (against loops written here), NonZero of a
// constant folds away at compile time, outputs take memory for what the run finds rather
// than arena space for the largest extent, and a body giving a value whose extent only the
// run knows is refused with an error naming the node (kernels reading such values:
// test_run_time_extents.cpp).
#include <gtest/gtest.h>

#include "compiler/compile_model.h"
#include "runtime/error.h"
#include "support/error.h"
#include "unit/compiler/compiler_test_util.h"

namespace tessel::compiler {
namespace {

using testing::f32;

/// y = NonZero(Relu(x)) with x: [rows, cols].
graph::Graph nonzero_model(int64_t rows, int64_t cols) {
  graph::Graph g;
  g.name = "nonzero";
  g.opsets = {{"", 17}};
  graph::Value* x = g.add_value("x", f32({rows, cols}));
  g.add_input(x);
  auto add = [&](const std::string& op, graph::Value* in,
                 std::map<std::string, graph::Attribute> attributes = {}) {
    return testing::add_untyped_node(g, op, {in}, std::move(attributes))[0];
  };
  graph::Value* y = add("NonZero", add("Relu", x));
  g.add_output(y);
  return g;
}

TEST(DataDependentSteps, NonZeroAfterAKernelTakesTheExtentTheRunFinds) {
  const int64_t rows = 3, cols = 5;
  CompiledModel compiled = compile_model(nonzero_model(rows, cols), {f32({rows, cols})});
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

/// A graph of one node `op` on inputs x (float32 [3, 4]) and `second` (a bool or int64
/// input, a value known only at run time), all of whose outputs are the graph's.
graph::Graph runtime_value_model(const std::string& op, graph::TensorType second, size_t outputs,
                                 std::map<std::string, graph::Attribute> attributes) {
  graph::Graph g;
  g.name = op;
  g.opsets = {{"", 17}};
  graph::Value* x = g.add_value("x", f32({3, 4}));
  graph::Value* v = g.add_value("v", std::move(second));
  g.add_input(x);
  g.add_input(v);
  for (graph::Value* out : testing::add_untyped_node(g, op, {x, v}, std::move(attributes), outputs))
    g.add_output(out);
  return g;
}

TEST(DataDependentSteps, CompressTakesItsConditionAtRunTime) {
  graph::TensorType condition_type = graph::TensorType::of(ir::DataType::Bool(), {4});
  graph::Graph g =
      runtime_value_model("Compress", condition_type, 1, {{"axis", graph::Attribute::of_int(1)}});
  runtime::Model model = jit_model(compile_model(g, {f32({3, 4}), condition_type}));
  runtime::NDArray x = testing::random_array({3, 4}, 4);
  for (uint8_t mask : {0b0101, 0b1111, 0b0000, 0b1000}) {
    runtime::NDArray condition({4}, runtime::DType::Bool());
    std::vector<int64_t> columns;
    for (int64_t j = 0; j < 4; ++j) {
      condition.data_as<uint8_t>()[j] = (mask >> j) & 1;
      if ((mask >> j) & 1) columns.push_back(j);
    }
    std::vector<runtime::NDArray> out = model.run({&x, &condition});
    int64_t count = static_cast<int64_t>(columns.size());
    ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{3, count})) << "mask " << int(mask);
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t c = 0; c < count; ++c)
        EXPECT_EQ(out[0].data_as<float>()[i * count + c],
                  x.data_as<float>()[i * 4 + columns[static_cast<size_t>(c)]]);
  }
}

TEST(DataDependentSteps, TopKTakesItsKAtRunTime) {
  graph::TensorType k_type = graph::TensorType::of(ir::DataType::Int(64), {1});
  graph::Graph g = runtime_value_model("TopK", k_type, 2, {{"axis", graph::Attribute::of_int(1)}});
  runtime::Model model = jit_model(compile_model(g, {f32({3, 4}), k_type}));
  runtime::NDArray x = testing::random_array({3, 4}, 8);  // distinct values
  for (int64_t k : {0, 1, 3, 4}) {
    runtime::NDArray k_value({1}, runtime::DType::Int(64));
    k_value.data_as<int64_t>()[0] = k;
    std::vector<runtime::NDArray> out = model.run({&x, &k_value});
    ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{3, k}));
    ASSERT_EQ(out[1].shape(), (std::vector<int64_t>{3, k}));
    for (int64_t i = 0; i < 3; ++i) {
      const float* row = x.data_as<float>() + i * 4;
      for (int64_t r = 0; r < k; ++r) {
        // The element of rank r: exactly r elements of the row are larger.
        int64_t index = out[1].data_as<int64_t>()[i * k + r], larger = 0;
        for (int64_t j = 0; j < 4; ++j) larger += row[j] > row[index];
        EXPECT_EQ(larger, r) << "row " << i << " k " << k;
        EXPECT_EQ(out[0].data_as<float>()[i * k + r], row[index]);
      }
    }
  }
  runtime::NDArray too_many({1}, runtime::DType::Int(64));
  too_many.data_as<int64_t>()[0] = 5;
  EXPECT_THROW(model.run({&x, &too_many}), runtime::Error);
}

TEST(DataDependentSteps, NonZeroOfAConstantFolds) {
  graph::Graph g;
  g.name = "folded";
  g.opsets = {{"", 17}};
  runtime::NDArray c = runtime::NDArray::zeros({2, 3}, runtime::DType::Float(32));
  c.data_as<float>()[1] = 4.0f;
  c.data_as<float>()[5] = -1.0f;
  graph::Value* constant =
      g.add_constant("c", std::make_shared<const runtime::NDArray>(std::move(c)));
  graph::Value* x = g.add_value("x", f32({2}));
  g.add_input(x);
  // A kernel may read the NonZero of a constant: its extent is known once folded.
  graph::Value* nonzero = testing::add_untyped_node(g, "NonZero", {constant})[0];
  graph::Value* cast =
      testing::add_untyped_node(g, "Cast", {nonzero}, {{"to", graph::Attribute::of_int(1)}})[0];
  g.add_output(testing::add_untyped_node(g, "Add", {cast, x})[0]);
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

TEST(DataDependentSteps, OutputsTakeMemoryForWhatTheRunFinds) {
  // A [512, 512] mask could give 2 x 262144 coordinates (4 MiB); the arena holds the ReLU's
  // output only, and each run allocates the coordinates it found, growing when a run finds
  // more than the runs before.
  const int64_t n = 512;
  CompiledModel compiled = compile_model(nonzero_model(n, n), {f32({n, n})});
  int64_t largest = 2 * n * n * 8, relu = n * n * 4;
  EXPECT_GE(compiled.plan.arena_bytes, relu);
  EXPECT_LT(compiled.plan.arena_bytes, relu + largest / 2);
  runtime::Model model = jit_model(std::move(compiled));
  runtime::NDArray x = runtime::NDArray::zeros({n, n}, runtime::DType::Float(32));
  for (int64_t positives : {1, 5000, 3, 262144}) {
    for (int64_t k = 0; k < n * n; ++k)  // the first `positives` elements of a stride-7 walk
      x.data_as<float>()[(k * 7) % (n * n)] = k < positives ? 1.0f : -1.0f;
    std::vector<int64_t> flat;
    for (int64_t k = 0; k < n * n; ++k)
      if (x.data_as<float>()[k] > 0) flat.push_back(k);
    runtime::NDArray y = std::move(model.run({&x})[0]);
    int64_t count = static_cast<int64_t>(flat.size());
    ASSERT_EQ(count, positives);
    ASSERT_EQ(y.shape(), (std::vector<int64_t>{2, count}));
    for (int64_t k = 0; k < count; ++k) {
      ASSERT_EQ(y.data_as<int64_t>()[k], flat[static_cast<size_t>(k)] / n) << positives;
      ASSERT_EQ(y.data_as<int64_t>()[count + k], flat[static_cast<size_t>(k)] % n) << positives;
    }
  }
}

TEST(DataDependentSteps, ABodyGivingADynamicExtentIsRefused) {
  // An If on a run-time condition whose branches end in NonZero: its output would be
  // carried at a fixed shape.
  auto branch = [](const std::string& name) {
    testing::TypedGraph b;
    b.graph.name = name;
    graph::Value* x = b.input("x", {2, 4});
    b.graph.captured_inputs = 1;
    graph::Value* y = testing::add_untyped_node(b.graph, "NonZero", {x})[0];
    b.output(y);
    return std::make_shared<const graph::Graph>(std::move(b.graph));
  };
  graph::Graph g;
  g.name = "if";
  g.opsets = {{"", 17}};
  graph::Value* cond = g.add_value("cond", graph::TensorType::of(ir::DataType::Bool(), {}));
  graph::Value* x = g.add_value("x", f32({2, 4}));
  g.add_input(cond);
  g.add_input(x);
  graph::Node node;
  node.name = "if";
  node.op_type = "If";
  node.opset = 17;
  node.attributes["then_branch"] = graph::Attribute::of_graph(branch("then"));
  node.attributes["else_branch"] = graph::Attribute::of_graph(branch("else"));
  node.inputs = {cond, x};
  node.outputs = {g.add_value("y", {})};
  g.add_node(std::move(node));
  g.add_output(g.nodes().back()->outputs[0]);
  try {
    compile_model(g, {graph::TensorType::of(ir::DataType::Bool(), {}), f32({2, 4})});
    FAIL() << "compiled";
  } catch (const CompileError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("NonZero"), std::string::npos) << m;
    EXPECT_NE(m.find("as an output of a body"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace tessel::compiler

// specialize_inputs: concrete input types checked against the declared ones, symbols bound
// consistently, given values turned into constants.
#include "passes/specialize_inputs.h"
#include "passes_test_util.h"

namespace tessel::passes {
namespace {

using namespace testing;

graph::TensorType symbolic(std::vector<graph::Dim> dims) {
  graph::TensorType type;
  type.dims = std::move(dims);
  return type;
}

/// y = MatMul(x[N, 3], w[3, K]) + Reshape-free bias, with symbols N and K.
TestGraph symbolic_graph() {
  TestGraph t;
  graph::Value* x = t.g.add_value("x", symbolic({graph::Dim::named("N"), graph::Dim::of(3)}));
  graph::Value* w = t.g.add_value("w", symbolic({graph::Dim::of(3), graph::Dim::named("K")}));
  graph::Value* z = t.g.add_value("z", symbolic({graph::Dim::named("N"), graph::Dim::named("K")}));
  t.g.add_input(x);
  t.g.add_input(w);
  t.g.add_input(z);
  t.output(t.op("Add", "y", {t.op("MatMul", "m", {x, w}), z}));
  return t;
}

TEST(SpecializeInputs, BindsSymbolsAndTypesTheGraph) {
  TestGraph t = symbolic_graph();
  graph::Graph special = specialize_inputs(
      t.g, {graph::TensorType::of(kF32, {2, 3}), graph::TensorType::of(kF32, {3, 4}),
            graph::TensorType::of(kF32, {2, 4})});
  EXPECT_EQ(graph::to_string(infer_types(special)), R"(graph g
  input %x: float32[2, 3]
  input %w: float32[3, 4]
  input %z: float32[2, 4]
  %m = MatMul(%x, %w)
  %y = Add(%m, %z)
  output %y: float32[2, 4]
)");
}

TEST(SpecializeInputs, GivenValuesBecomeConstants) {
  TestGraph t = symbolic_graph();
  runtime::NDArray w = array_of(kF32, {3, 1}, {1, 2, 3});
  graph::Graph special =
      specialize_inputs(t.g,
                        {graph::TensorType::of(kF32, {2, 3}), graph::TensorType::of(kF32, {3, 1}),
                         graph::TensorType::of(kF32, {2, 1})},
                        {nullptr, &w});
  EXPECT_EQ(graph::to_string(infer_types(special)), R"(graph g
  input %x: float32[2, 3]
  input %z: float32[2, 1]
  const %w: float32[3, 1]
  %m = MatMul(%x, %w)
  %y = Add(%m, %z)
  output %y: float32[2, 1]
)");
  runtime::NDArray x = array_of(kF32, {2, 3}, {1, 0, 0, 0, 1, 1});
  runtime::NDArray z = array_of(kF32, {2, 1}, {10, 20});
  std::vector<runtime::NDArray> inputs;
  inputs.push_back(std::move(x));
  inputs.push_back(std::move(z));
  std::vector<runtime::NDArray> y = run_graph(special, inputs);
  EXPECT_EQ(element(y[0], 0), 11);
  EXPECT_EQ(element(y[0], 1), 25);
}

TEST(SpecializeInputs, ErrorsNameTheInput) {
  TestGraph t = symbolic_graph();
  auto f32 = [](Shape s) { return graph::TensorType::of(kF32, std::move(s)); };
  auto message = [&](std::vector<graph::TensorType> types) {
    return error_of([&] { specialize_inputs(t.g, types); });
  };
  EXPECT_NE(message({f32({2, 4}), f32({3, 4}), f32({2, 4})})
                .find("graph input 0 'x' (declared float32[N, 3]): dimension 1 must be 3"),
            std::string::npos);
  EXPECT_NE(message({f32({2, 3}), f32({3, 4, 1}), f32({2, 4})}).find("'w'"), std::string::npos);
  EXPECT_NE(message({f32({2, 3}), f32({3, 4}), f32({5, 4})})
                .find("'z' (declared float32[N, K]): dimension 0 'N' is given as 5 but is 2"),
            std::string::npos);
  EXPECT_NE(message({f32({2, 3}), graph::TensorType::of(kI64, {3, 4}), f32({2, 4})})
                .find("'w' (declared float32[3, K]): expected element type float32"),
            std::string::npos);
  EXPECT_NE(message({f32({2, 3})}).find("has 3 inputs; given 1 types"), std::string::npos);
}

}  // namespace
}  // namespace tessel::passes

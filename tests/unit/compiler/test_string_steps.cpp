// String tensors compiled: numbers to text with stop words dropped, and text to numbers
// read by a kernel, run as runtime steps beside kernels, JIT and through an exported library
// (against values worked out here); string outputs outlive the next run; and the errors for
// strings where a kernel would need them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "compiler/compile_model.h"
#include "runtime/model.h"
#include "support/error.h"
#include "unit/compiler/compiler_test_util.h"

namespace tessel::compiler {
namespace {

using testing::f32;

graph::TensorType strings(std::vector<int64_t> shape) {
  return graph::TensorType::of(ir::DataType::String(), shape);
}

/// Two chains: x float32 [4] -> Relu -> Cast to string -> StringNormalizer (drop "0") ->
/// output words; t string [3] -> Cast to float32 -> + 1 (a kernel after a step) -> output.
graph::Graph text_round_trip() {
  graph::Graph g;
  g.name = "text";
  g.opsets = {{"", 17}};
  graph::Value* x = g.add_value("x", f32({4}));
  graph::Value* t = g.add_value("t", strings({3}));
  g.add_input(x);
  g.add_input(t);
  auto add = [&](const std::string& op, std::vector<graph::Value*> in,
                 std::map<std::string, graph::Attribute> attributes = {}) {
    return testing::add_untyped_node(g, op, std::move(in), std::move(attributes))[0];
  };
  graph::Value* text = add("Cast", {add("Relu", {x})}, {{"to", graph::Attribute::of_int(8)}});
  g.add_output(add("StringNormalizer", {text},
                   {{"stopwords", graph::Attribute::of_strings({"0"})},
                    {"is_case_sensitive", graph::Attribute::of_int(1)}}));
  graph::Value* numbers = add("Cast", {t}, {{"to", graph::Attribute::of_int(1)}});
  runtime::NDArray one({1}, runtime::DType::Float(32));
  one.data_as<float>()[0] = 1;
  g.add_output(add(
      "Add",
      {numbers, g.add_constant("one", std::make_shared<const runtime::NDArray>(std::move(one)))}));
  return g;
}

runtime::NDArray texts(std::vector<std::string> values) {
  runtime::NDArray a({static_cast<int64_t>(values.size())}, runtime::DType::String());
  for (size_t k = 0; k < values.size(); ++k) a.set_string(static_cast<int64_t>(k), values[k]);
  return a;
}

runtime::NDArray floats(std::vector<float> values) {
  runtime::NDArray a({static_cast<int64_t>(values.size())}, runtime::DType::Float(32));
  for (size_t k = 0; k < values.size(); ++k) a.data_as<float>()[k] = values[k];
  return a;
}

void expect_round_trip(runtime::Model& model) {
  runtime::NDArray x = floats({0.25f, -3.0f, 1e-5f, 12.5f});
  runtime::NDArray t = texts({"1.5", "-2E3", "+INF"});
  std::vector<runtime::NDArray> first = model.run({&x, &t});
  ASSERT_EQ(first.size(), 2u);
  ASSERT_EQ(first[0].shape(), std::vector<int64_t>{3});  // Relu(-3) = 0 is a stop word
  EXPECT_EQ(first[0].string_at(0), "0.25");
  EXPECT_EQ(first[0].string_at(1), "0.00001");
  EXPECT_EQ(first[0].string_at(2), "12.5");
  ASSERT_EQ(first[1].shape(), std::vector<int64_t>{3});
  EXPECT_EQ(first[1].data_as<float>()[0], 2.5f);
  EXPECT_EQ(first[1].data_as<float>()[1], -1999.0f);
  EXPECT_EQ(first[1].data_as<float>()[2], INFINITY);
  // Another run makes other text; the first run's outputs keep theirs.
  runtime::NDArray other = floats({-1.0f, -2.0f, 7.0f, -4.0f});
  std::vector<runtime::NDArray> second = model.run({&other, &t});
  ASSERT_EQ(second[0].shape(), std::vector<int64_t>{1});
  EXPECT_EQ(second[0].string_at(0), "7");
  EXPECT_EQ(first[0].string_at(2), "12.5");
}

TEST(StringSteps, NumbersToTextAndBackRunBetweenKernels) {
  CompiledModel compiled = compile_model(text_round_trip(), {f32({4}), strings({3})});
  int string_steps = 0, kernels = 0;
  for (const runtime::PlanStep& step : compiled.plan.steps) {
    string_steps += step.kind == runtime::StepKind::StringNormalizer ||
                    step.kind == runtime::StepKind::CastString;
    kernels += step.kind == runtime::StepKind::Kernel;
  }
  EXPECT_EQ(string_steps, 3);
  EXPECT_EQ(kernels, 2);
  runtime::Model model = jit_model(std::move(compiled));
  expect_round_trip(model);
}

TEST(StringSteps, RunThroughAnExportedLibrary) {
  std::string path = (std::filesystem::path(::testing::TempDir()) /
                      ("tessel_strings_" + std::to_string(getpid()) + ".so"))
                         .string();
  export_model(compile_model(text_round_trip(), {f32({4}), strings({3})}), path);
  runtime::Model model = runtime::Model::load(path);
  expect_round_trip(model);
  std::filesystem::remove(path);
}

/// The CompileError compiling `g` for `inputs` gives ("" when it compiles).
std::string compile_error(const graph::Graph& g, const std::vector<graph::TensorType>& inputs) {
  try {
    compile_model(g, inputs);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

TEST(StringSteps, AKernelOnStringsIsRefusedNamingTheNode) {
  graph::Graph g;
  g.name = "transpose";
  g.opsets = {{"", 17}};
  graph::Value* words = g.add_value("words", strings({2}));
  g.add_input(words);
  g.add_output(testing::add_untyped_node(g, "Transpose", {words})[0]);
  std::string message = compile_error(g, {strings({2})});
  EXPECT_NE(message.find("node 'Transpose0' (Transpose)"), std::string::npos) << message;
  EXPECT_NE(message.find("string tensors are not supported by Transpose"), std::string::npos)
      << message;
}

TEST(StringSteps, AStringConstantThatDoesNotFoldAwayIsRefused) {
  graph::Graph g;
  g.name = "constant";
  g.opsets = {{"", 17}};
  graph::Value* x = g.add_value("x", f32({1}));
  g.add_input(x);
  auto words =
      std::make_shared<runtime::NDArray>(std::vector<int64_t>{1}, runtime::DType::String());
  words->set_string(0, "monday");
  g.add_output(x);
  g.add_output(g.add_constant("days", std::move(words)));
  std::string message = compile_error(g, {f32({1})});
  EXPECT_NE(message.find("the string constant 'days' reaches a step"), std::string::npos)
      << message;
}

}  // namespace
}  // namespace tessel::compiler

// Compiling for AVX2 and for AVX-512 on any host: the schedules size their tiles by the
// target's lanes, the code uses only its registers, the model still computes what its nodes
// compute one by one (run where the host can), and two widths compile side by side.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "codegen/llvm/codegen_llvm.h"
#include "compiler/compile_model.h"
#include "compiler_test_util.h"
#include "ir/functor.h"
#include "target/parse_target.h"
#include "unit/target_test_util.h"

namespace tessel::compiler {
namespace {

using testing::TypedGraph;

/// Blocked convolutions (dense with its epilogue; grouped by 4 and by 8 channels, in lanes
/// or a vector per group; depthwise of stride 2, read in place), a product, a softmax and a
/// layer norm.
TypedGraph mixed_model() {
  TypedGraph t;
  graph::Value* image = t.input("image", {1, 16, 12, 12});
  graph::Attribute pads = graph::Attribute::of_ints({1, 1, 1, 1});
  graph::Value* conv = t.node("Conv", {image, t.constant("w", {32, 16, 3, 3}, 1)}, {1, 32, 12, 12},
                              {{"pads", pads}});
  t.output(t.node("Relu", {conv}, {1, 32, 12, 12}));
  auto grouped = [&](int64_t groups, uint32_t seed, int64_t stride) {
    int64_t out = 12 / stride;
    t.output(t.node("Conv",
                    {image, t.constant("g" + std::to_string(seed), {16, 16 / groups, 3, 3}, seed)},
                    {1, 16, out, out},
                    {{"pads", pads},
                     {"group", graph::Attribute::of_int(groups)},
                     {"strides", graph::Attribute::of_ints({stride, stride})}}));
  };
  grouped(4, 7, 1);   // groups of 4 channels
  grouped(2, 8, 1);   // groups of 8
  grouped(16, 9, 2);  // depthwise, strided
  graph::Value* x = t.input("x", {20, 40});
  graph::Value* product = t.node("MatMul", {x, t.constant("m", {40, 56}, 2)}, {20, 56});
  t.output(t.node("Softmax", {product}, {20, 56}, {{"axis", graph::Attribute::of_int(-1)}}));
  t.output(t.node("LayerNormalization",
                  {product, t.constant("gamma", {56}, 3), t.constant("beta", {56}, 4)}, {20, 56},
                  {{"axis", graph::Attribute::of_int(-1)}}));
  return t;
}

/// The most lanes of any vector expression in the kernels' loop IR.
int widest_vector(const std::vector<ir::PrimFunc>& kernels) {
  struct Widest : ir::IRVisitor {
    int lanes = 1;
    void visit_Ramp(const ir::RampNode* op) override {
      lanes = std::max(lanes, static_cast<int>(op->lanes));
      visit_children(op);
    }
    void visit_Broadcast(const ir::BroadcastNode* op) override {
      lanes = std::max(lanes, static_cast<int>(op->lanes));
      visit_children(op);
    }
  } widest;
  for (const ir::PrimFunc& f : kernels) widest.visit(f.body);
  return widest.lanes;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class TargetLanes : public ::testing::TestWithParam<const char*> {};

TEST_P(TargetLanes, TheTargetGetsItsOwnTilesAndComputesTheModel) {
  const target::Target target = target::parse_target(GetParam());
  TypedGraph t = mixed_model();
  std::vector<graph::TensorType> types;
  for (const graph::Value* input : t.graph.inputs()) types.push_back(input->type);
  CompileOptions options;
  options.build.target = target;
  CompiledModel compiled = compile_model(t.graph, types, {}, options);
  // The widest vectors (the product's column panels) span two of the target's registers.
  const int lanes = target.float_lanes();
  EXPECT_EQ(widest_vector(compiled.kernels), 2 * lanes);
  // The target's registers only: ymm for AVX2, zmm for AVX-512.
  std::string assembly = codegen::emit_assembly(compiled.kernels, target);
  EXPECT_GT(count(assembly, lanes == 16 ? "%zmm" : "%ymm"), 0);
  if (lanes == 8) {
    EXPECT_EQ(count(assembly, "%zmm"), 0);
  }

  TESSEL_SKIP_UNLESS_HOST_RUNS(target);
  runtime::NDArray image = testing::random_array({1, 16, 12, 12}, 5);
  runtime::NDArray x = testing::random_array({20, 40}, 6);
  std::vector<runtime::NDArray> expected = testing::run_unfused(t.graph, {&image, &x});
  runtime::Model model = jit_model(std::move(compiled), options.build);
  std::vector<runtime::NDArray> actual = model.run({&image, &x});
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t o = 0; o < actual.size(); ++o) testing::expect_close(actual[o], expected[o]);
}

INSTANTIATE_TEST_SUITE_P(X86, TargetLanes, ::testing::ValuesIn(tessel::testing::kVectorTargets));

TEST(TargetLanesTogether, CompilesForTwoWidthsAtOnceEachByItsOwnTarget) {
  // Nothing process-wide holds a vector width: two threads compiling the same model for
  // AVX2 and for AVX-512 at the same time each get their own tiles.
  TypedGraph t = mixed_model();
  std::vector<graph::TensorType> types;
  for (const graph::Value* input : t.graph.inputs()) types.push_back(input->type);
  auto widest_for = [&](const char* description, int& widest) {
    CompileOptions options;
    options.build.target = target::parse_target(description);
    for (int round = 0; round < 3; ++round)
      widest = std::max(widest, widest_vector(compile_model(t.graph, types, {}, options).kernels));
  };
  int avx2 = 0, avx512 = 0;
  std::thread narrow([&] { widest_for("x86-64-avx2", avx2); });
  std::thread wide([&] { widest_for("x86-64-avx512", avx512); });
  narrow.join();
  wide.join();
  EXPECT_EQ(avx2, 2 * 8);
  EXPECT_EQ(avx512, 2 * 16);
}

}  // namespace
}  // namespace tessel::compiler

// Task extraction: distinct kernels with weights, FLOPs and templates; every sampled point
// of every template computes what the default schedule computes.
#include <gtest/gtest.h>

#include <random>

#include "autotune/features.h"
#include "autotune/measure.h"
#include "autotune_test_util.h"
#include "target/parse_target.h"
#include "unit/target_test_util.h"

namespace tessel::autotune {
namespace {

using testing::TypedGraph;

TEST(Tasks, FlopsOfASelectCountTheCostlierBranch) {
  ir::Var x("x", ir::DataType::Float(32)), y("y", ir::DataType::Float(32));
  EXPECT_EQ(count_flops(ir::select(x > y, x * y + x, x - y)), 2.0);
  EXPECT_EQ(count_flops(ir::select(x > y, x, (x - y) * (x + y))), 3.0);
}

TEST(Tasks, EqualKernelsShareATaskWeightedByLaunches) {
  TypedGraph t = testing::two_matmuls();
  TaskSet set = testing::tasks_of(t.graph);
  ASSERT_EQ(set.tasks.size(), 2u);  // MatMul+Relu twice, then Sigmoid
  const Task& product = set.tasks[0];
  EXPECT_EQ(product.weight, 2);
  EXPECT_EQ(set.tasks[1].weight, 1);
  EXPECT_NE(product.key, set.tasks[1].key);
  EXPECT_EQ(product.key.size(), 16u);
  EXPECT_NE(product.name.find("MatMul"), std::string::npos);
  EXPECT_NE(product.name.find("64x48"), std::string::npos);
  // 2 M N K for the product, at most a few operations per element for the epilogue.
  double product_flops = 2.0 * 64 * 48 * 32;
  EXPECT_GE(product.flops, product_flops);
  EXPECT_LE(product.flops, product_flops + 4 * 64 * 48);
  EXPECT_EQ(product.template_name, "matmul");
  EXPECT_TRUE(product.tunable());
  EXPECT_FALSE(set.tasks[1].tunable());  // an element-wise Sigmoid has no template
  EXPECT_EQ(product.target, target_key(target::host()));
}

TEST(Tasks, LoopBodyKernelsAreTasksWeightedByTheTrips) {
  TaskSet set = testing::tasks_of(compiler::testing::loop_model(3, 5));
  ASSERT_FALSE(set.bodies.empty());
  bool tanh_found = false;
  for (const Task& task : set.tasks) {
    EXPECT_EQ(task.weight, 5) << task.name;  // every kernel of this model is in the body
    tanh_found |= task.name.find("Tanh") != std::string::npos;
  }
  EXPECT_TRUE(tanh_found);
}

TEST(Tasks, AProductOnKeptRowsIsTheKernelThePlanRunsPerBlock) {
  // Relu(x[x.sum(1) > 0] @ w) with x [96, 8]: the product runs per block of 48 rows, and
  // its task is that block kernel, so that tuning records reach it.
  graph::Graph g;
  g.name = "kept_rows";
  g.opsets = {{"", 17}};
  graph::Value* x = g.add_value("x", compiler::testing::f32({96, 8}));
  g.add_input(x);
  auto add = [&](const std::string& op, std::vector<graph::Value*> in,
                 std::map<std::string, graph::Attribute> attributes = {}) {
    return compiler::testing::add_untyped_node(g, op, std::move(in), std::move(attributes))[0];
  };
  auto constant = [&](const std::string& name, runtime::NDArray a) {
    return g.add_constant(name, std::make_shared<const runtime::NDArray>(std::move(a)));
  };
  runtime::NDArray axis({1}, runtime::DType::Int(64));
  axis.data_as<int64_t>()[0] = 1;
  graph::Value* sums = add("ReduceSum", {x, constant("axis", std::move(axis))},
                           {{"keepdims", graph::Attribute::of_int(0)}});
  graph::Value* keep = add(
      "Greater", {sums, constant("zero", runtime::NDArray::zeros({}, runtime::DType::Float(32)))});
  graph::Value* kept = add("GatherND", {x, add("Transpose", {add("NonZero", {keep})})});
  graph::Value* w = constant("w", compiler::testing::random_array({8, 4}, 5));
  g.add_output(add("Relu", {add("MatMul", {kept, w})}));

  TaskSet set = testing::tasks_of(g);
  const Task* product = nullptr;
  for (const Task& task : set.tasks)
    if (task.name.find("MatMul") != std::string::npos) product = &task;
  ASSERT_NE(product, nullptr);
  EXPECT_EQ(product->kernel->output_types.at(0).shape(), (std::vector<int64_t>{48, 4}));
  std::set<std::string> compiled_keys;
  compiler::CompileOptions options;
  options.choose_schedule = [&](const compiler::GroupKernel& kernel) {
    compiled_keys.insert(kernel.key);
    return std::optional<schedule::Trace>();
  };
  compiler::compile_model(g, {compiler::testing::f32({96, 8})}, {}, options);
  EXPECT_TRUE(compiled_keys.count(product->kernel->key)) << product->name;
}

TEST(Tasks, KeysDependOnTheTarget) {
  TypedGraph t = testing::two_matmuls();
  TaskSet set = testing::tasks_of(t.graph);
  const compiler::GroupKernel& kernel = *set.tasks[0].kernel;
  EXPECT_EQ(task_key(kernel, "llvm -mcpu=a -lanes=16"), task_key(kernel, "llvm -mcpu=a -lanes=16"));
  EXPECT_NE(task_key(kernel, "llvm -mcpu=a -lanes=16"), task_key(kernel, "llvm -mcpu=a -lanes=8"));
  EXPECT_NE(target_key(target::host()).find("-lanes="), std::string::npos);
  EXPECT_NE(target_key(target::parse_target("llvm -mcpu=haswell"), 1).find(" -lanes=8 "),
            std::string::npos);
  EXPECT_NE(target_key(target::parse_target("llvm -mcpu=skylake-avx512"), 1).find(" -lanes=16 "),
            std::string::npos);
  EXPECT_NE(target_key(target::parse_target("llvm -mcpu=znver4 -mattr=-avx512f"), 1),
            target_key(target::parse_target("llvm -mcpu=znver4"), 1));
}

TEST(Tasks, FeaturesHaveOneLengthPerTemplate) {
  TypedGraph t = testing::two_matmuls();
  TaskSet set = testing::tasks_of(t.graph);
  const Task& task = set.tasks[0];
  std::mt19937_64 rng(1);
  Point a = task.space.random_point(rng), b = task.space.random_point(rng);
  std::vector<float> fa = candidate_features(task, a), fb = candidate_features(task, b);
  EXPECT_EQ(fa.size(), kLoopFeatures + task.space.knobs().size());
  EXPECT_EQ(fa.size(), fb.size());
  EXPECT_EQ(fa, candidate_features(task, a));  // deterministic
}

/// Convolutions in the blocked layout: a direct 3x3, a 1x1 and a depthwise one.
TypedGraph three_convolutions() {
  TypedGraph t;
  graph::Value* x = t.input("x", {1, 16, 10, 10});
  graph::Value* a = t.node("Conv", {x, t.constant("w1", {32, 16, 3, 3}, 1)}, {1, 32, 10, 10},
                           {{"pads", graph::Attribute::of_ints({1, 1, 1, 1})}});
  graph::Value* b =
      t.node("Relu", {t.node("Conv", {a, t.constant("w2", {32, 32, 1, 1}, 2)}, {1, 32, 10, 10})},
             {1, 32, 10, 10});
  graph::Value* c = t.node(
      "Conv", {b, t.constant("w3", {32, 1, 3, 3}, 3)}, {1, 32, 10, 10},
      {{"pads", graph::Attribute::of_ints({1, 1, 1, 1})}, {"group", graph::Attribute::of_int(32)}});
  t.output(c);
  return t;
}

TEST(Tasks, ConvolutionTemplatesMatchTheDefaultSchedule) {
  TypedGraph t = three_convolutions();
  TaskSet set = testing::tasks_of(t.graph);
  for (const char* name : {"conv2d_nchwc", "conv2d_nchwc_1x1", "conv2d_nchwc_depthwise"}) {
    const Task& task = testing::task_of_template(set, name);
    EXPECT_GT(task.space.size(), 8u) << name;
    testing::expect_points_match_default(task, 6);
  }
}

/// A 3x3 convolution of stride 1 between 32 blocked channels, which takes F(m x m, 3 x 3);
/// its 9x9 output leaves a partial last tile.
TypedGraph winograd_convolution() {
  TypedGraph t;
  graph::Value* x = t.input("x", {1, 32, 9, 9});
  t.output(t.node("Relu",
                  {t.node("Conv", {x, t.constant("w", {48, 32, 3, 3}, 1), t.constant("b", {48}, 2)},
                          {1, 48, 9, 9}, {{"pads", graph::Attribute::of_ints({1, 1, 1, 1})}})},
                  {1, 48, 9, 9}));
  return t;
}

TEST(Tasks, WinogradTemplateMatchesTheDefaultSchedule) {
  TypedGraph t = winograd_convolution();
  TaskSet set = testing::tasks_of(t.graph);
  const Task& task = testing::task_of_template(set, "conv2d_nchwc_winograd");
  EXPECT_GT(task.space.size(), 8u);
  // Its FLOPs count one row of each transform table, not every row a select holds: fewer
  // than the direct convolution's multiply-adds.
  EXPECT_LT(task.flops, 2.0 * 48 * 32 * 9 * 81);
  EXPECT_GT(task.flops, 2.0 * 48 * 32 * 9 * 81 / 4);
  testing::expect_points_match_default(task, 6);
}

TEST(Tasks, GroupedConvolutionTemplatesMatchTheDefaultSchedule) {
  // Groups of 4 and of 8 channels in blocks of 16 reduce in lanes (the input permuted per
  // lane, or a vector per group); groups of 16 channels, a block each, reduce over the
  // input blocks of their group (register tiles over several output blocks read different
  // input blocks).
  TypedGraph t;
  graph::Value* x = t.input("x", {1, 16, 8, 8});
  graph::Value* a = t.node("Conv", {x, t.constant("w1", {32, 16, 1, 1}, 1)}, {1, 32, 8, 8});
  auto grouped = [&](graph::Value* in, int64_t groups, uint32_t seed) {
    return t.node("Conv",
                  {in, t.constant("w" + std::to_string(seed), {32, 32 / groups, 3, 3}, seed)},
                  {1, 32, 8, 8},
                  {{"pads", graph::Attribute::of_ints({1, 1, 1, 1})},
                   {"group", graph::Attribute::of_int(groups)}});
  };
  t.output(grouped(grouped(grouped(a, 8, 2), 4, 3), 2, 4));
  TaskSet set = testing::tasks_of(t.graph);
  int lane_groups = 0;
  for (const Task& task : set.tasks) {
    if (task.template_name != "conv2d_nchwc_grouped") continue;
    ++lane_groups;
    testing::expect_points_match_default(task, 6);
  }
  EXPECT_EQ(lane_groups, 2);
  const Task& dense = testing::task_of_template(set, "conv2d_nchwc");
  EXPECT_NE(dense.name.find("Conv2dNCHWc"), std::string::npos) << dense.name;
  testing::expect_points_match_default(dense, 6);
}

TEST(Tasks, PoolRowAndBatchedProductTemplatesMatchTheDefaultSchedule) {
  TypedGraph t;
  graph::Value* image = t.input("image", {1, 4, 20, 40});
  t.output(t.node("MaxPool", {image}, {1, 4, 9, 19},
                  {{"kernel_shape", graph::Attribute::of_ints({3, 3})},
                   {"strides", graph::Attribute::of_ints({2, 2})}}));
  graph::Value* x = t.input("x", {64, 48});
  t.output(t.node("Softmax", {x}, {64, 48}, {{"axis", graph::Attribute::of_int(-1)}}));
  t.output(t.node("LayerNormalization",
                  {x, t.constant("gamma", {48}, 3), t.constant("beta", {48}, 4)}, {64, 48},
                  {{"axis", graph::Attribute::of_int(-1)}}));
  graph::Value* a = t.input("a", {4, 32, 48});
  graph::Value* b = t.input("b", {4, 48, 32});
  t.output(t.node("MatMul", {a, b}, {4, 32, 32}));
  TaskSet set = testing::tasks_of(t.graph);
  for (const char* name : {"pool", "softmax", "layernorm", "batched_matmul"}) {
    const Task& task = testing::task_of_template(set, name);
    EXPECT_GT(task.space.size(), 4u) << name;
    testing::expect_points_match_default(task, 5);
  }
}

TEST(Tasks, MatmulTemplateMatchesTheDefaultSchedule) {
  TypedGraph t = testing::two_matmuls();
  testing::expect_points_match_default(
      testing::task_of_template(testing::tasks_of(t.graph), "matmul"), 8);
}

class TasksByTarget : public ::testing::TestWithParam<const char*> {};

TEST_P(TasksByTarget, MatmulCacheBlockingAndRowPackingMatchTheDefaultSchedule) {
  // A batch of left operands (26 rows in all), K = 70 and 5 x 16 columns: no tile divides
  // them, so every split leaves a remainder, and a tile of two panels (of 32 or 16
  // columns) overhangs the last panel.
  const target::Target target = target::parse_target(GetParam());
  TypedGraph t;
  graph::Value* a = t.input("a", {2, 13, 70});
  t.output(t.node("MatMul", {a, t.constant("w", {70, 80}, 1)}, {2, 13, 80}));
  TaskSet set = testing::tasks_of(t.graph, target);
  const Task& task = testing::task_of_template(set, "matmul");
  // The tallest tile height of both targets' spaces, 6 rows on AVX2 and 8 on AVX-512.
  const int64_t tall = target.float_lanes() == 16 ? 8 : 6;
  std::vector<Point> points;
  for (uint64_t i = 0; i < task.space.size(); ++i) {
    Point p = task.space.point_at(i);
    int64_t tile_m = task.space.value(p, "tile_m"), unroll_k = task.space.value(p, "unroll_k");
    int64_t prefetch = task.space.value(p, "prefetch");
    if (((tile_m == 3 && prefetch == 0) || (tile_m == tall && prefetch == 1)) &&
        (unroll_k == 1 || unroll_k == 4) && task.space.value(p, "rows_outer") == 0)
      points.push_back(p);
  }
  // tile_n in {1, 2}, tile_k in {0, 32, 64}, pack_rows in {0, 1}, two tile heights (the
  // taller one prefetching B's next column tile), two unroll depths.
  ASSERT_EQ(points.size(), 48u);
  TESSEL_SKIP_UNLESS_HOST_RUNS(target);
  testing::expect_match_default(task, points, target);
}

TEST_P(TasksByTarget, TemplatesAreSizedByTheTargetAndMatchTheDefault) {
  // The task set of each vector width, on any host, and its candidates built for it.
  const target::Target target = target::parse_target(GetParam());
  const bool avx512 = target.float_lanes() == 16;
  TypedGraph t = three_convolutions();
  graph::Value* rows = t.input("rows", {40, 24});
  t.output(t.node("MatMul", {rows, t.constant("m", {24, 40}, 9)}, {40, 40}));
  TaskSet set = testing::tasks_of(t.graph, target);
  const Task& matmul = testing::task_of_template(set, "matmul");
  EXPECT_EQ(matmul.space.knobs().front().name, "tile_m");
  // Rows x 2 vectors of accumulators next to B's 2 vectors and A's broadcast: 14 rows of
  // 32 zmm registers, 6 of 16 ymm.
  EXPECT_EQ(matmul.space.knobs().front().values.back(), avx512 ? 14 : 6);
  const Task& conv = testing::task_of_template(set, "conv2d_nchwc");
  EXPECT_EQ(conv.space.knobs().front().name, "tile_ow");
  // 16-channel blocks: 1 zmm (28 accumulators: the output's 10 columns) or 2 ymm (13 / 2).
  EXPECT_EQ(conv.space.knobs().front().values.back(), avx512 ? 10 : 6);
  TESSEL_SKIP_UNLESS_HOST_RUNS(target);
  for (const Task& task : set.tasks)
    if (task.tunable()) testing::expect_points_match_default(task, 3, target);
}

TEST_P(TasksByTarget, WinogradTemplateIsSizedByTheTargetAndMatchesTheDefault) {
  const target::Target target = target::parse_target(GetParam());
  TypedGraph t = winograd_convolution();
  TaskSet set = testing::tasks_of(t.graph, target);
  const Task& task = testing::task_of_template(set, "conv2d_nchwc_winograd");
  // Tiles per register tile of 16-channel blocks: 13 ymm accumulators hold 6 tiles of 2
  // vectors; 28 zmm accumulators more than 6 (all of the output's 9 or 25 tiles).
  const Knob& tile_p = task.space.knobs().front();
  EXPECT_EQ(tile_p.name, "tile_p");
  if (target.float_lanes() == 8) {
    EXPECT_EQ(tile_p.values.back(), 6);
  } else {
    EXPECT_GT(tile_p.values.back(), 6);
  }
  TESSEL_SKIP_UNLESS_HOST_RUNS(target);
  testing::expect_points_match_default(task, 4, target);
}

INSTANTIATE_TEST_SUITE_P(X86, TasksByTarget, ::testing::ValuesIn(tessel::testing::kVectorTargets));

}  // namespace
}  // namespace tessel::autotune

// Generated search spaces (SearchKind::Auto): every task of a model gets knobs from the
// rules over its DAG, whatever its operators; the default point and sampled points build,
// run and compute what the default schedule computes (which the operator tests check against
// naive references), on the host and on AVX2 and AVX-512 targets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "autotune/features.h"
#include "autotune/generated_space.h"
#include "autotune/records.h"
#include "autotune/tune.h"
#include "autotune_test_util.h"
#include "compiler/compile_model.h"
#include "driver/build.h"
#include "schedules/cpu/generic.h"
#include "schedules/knobs.h"
#include "target/parse_target.h"
#include "te/compute.h"
#include "unit/target_test_util.h"

namespace tessel::autotune {
namespace {

using testing::TypedGraph;

TaskSet auto_tasks_of(const graph::Graph& graph, const target::Target& target = target::host()) {
  std::vector<graph::TensorType> types;
  for (const graph::Value* in : graph.inputs()) types.push_back(in->type);
  compiler::CompileOptions options;
  options.build.target = target;
  return extract_tasks(compiler::optimize_graph(graph, types, {}, options), options,
                       SearchKind::Auto);
}

/// The task whose name contains `part`; fails the test when there is none.
const Task& task_named(const TaskSet& set, const std::string& part) {
  for (const Task& t : set.tasks)
    if (t.name.find(part) != std::string::npos) return t;
  ADD_FAILURE() << "no task named like " << part;
  throw std::runtime_error("no task " + part);
}

/// A transformer block's kernels: a product with a bias and tanh, a LayerNorm, a softmax, a
/// transpose and a reduction to one value per row.
TypedGraph transformer_pieces() {
  TypedGraph t;
  graph::Value* x = t.input("x", {1, 24, 40});
  graph::Value* w = t.constant("w", {40, 72}, 1);
  graph::Value* b = t.constant("b", {72}, 2);
  graph::Value* h = t.node("Add", {t.node("MatMul", {x, w}, {1, 24, 72}), b}, {1, 24, 72});
  t.output(t.node("Tanh", {h}, {1, 24, 72}));
  t.output(t.node("LayerNormalization", {x, t.constant("g", {40}, 3), t.constant("be", {40}, 4)},
                  {1, 24, 40}, {{"axis", graph::Attribute::of_int(-1)}}));
  graph::Value* s = t.input("s", {2, 24, 40});
  t.output(t.node("Softmax", {s}, {2, 24, 40}, {{"axis", graph::Attribute::of_int(-1)}}));
  t.output(t.node("Transpose", {s}, {2, 40, 24}, {{"perm", graph::Attribute::of_ints({0, 2, 1})}}));
  t.output(t.node("ReduceSum", {s, t.ints("axes", {-1})}, {2, 24, 1}));
  return t;
}

TEST(GeneratedSpaces, EveryTaskOfATransformerBlockIsTunable) {
  TypedGraph t = transformer_pieces();
  TaskSet set = auto_tasks_of(t.graph);
  ASSERT_GE(set.tasks.size(), 5u);
  for (const Task& task : set.tasks) {
    EXPECT_EQ(task.search, SearchKind::Auto);
    EXPECT_TRUE(task.tunable()) << task.name;
    EXPECT_EQ(task.template_name.rfind("auto.", 0), 0u) << task.name << ": " << task.template_name;
  }
  EXPECT_EQ(task_named(set, "Tanh").template_name, "auto.tiled_reduction");
  EXPECT_EQ(task_named(set, "Softmax").template_name, "auto.row_reduction");
  EXPECT_EQ(task_named(set, "LayerNormalization").template_name, "auto.row_reduction");
  EXPECT_EQ(task_named(set, "ReduceSum").template_name, "auto.row_reduction");
  EXPECT_EQ(task_named(set, "Transpose").template_name, "auto.injective");
}

TEST(GeneratedSpaces, SampledPointsMatchTheDefaultSchedule) {
  TypedGraph t = transformer_pieces();
  for (const Task& task : auto_tasks_of(t.graph).tasks)
    testing::expect_points_match_default(task, 6);
}

TEST(GeneratedSpaces, ConvolutionsAndPoolingMatchTheDefaultSchedule) {
  TypedGraph t;
  graph::Value* x = t.input("x", {1, 16, 10, 10});
  graph::Value* a = t.node("Conv", {x, t.constant("w1", {32, 16, 3, 3}, 1)}, {1, 32, 10, 10},
                           {{"pads", graph::Attribute::of_ints({1, 1, 1, 1})}});
  graph::Value* r = t.node("Relu", {a}, {1, 32, 10, 10});
  t.output(t.node("MaxPool", {r}, {1, 32, 5, 5},
                  {{"kernel_shape", graph::Attribute::of_ints({2, 2})},
                   {"strides", graph::Attribute::of_ints({2, 2})}}));
  t.output(t.node("GlobalAveragePool", {r}, {1, 32, 1, 1}));
  TaskSet set = auto_tasks_of(t.graph);
  for (const Task& task : set.tasks) {
    EXPECT_TRUE(task.tunable()) << task.name;
    testing::expect_points_match_default(task, 4);
  }
}

class GeneratedSpacesByTarget : public ::testing::TestWithParam<const char*> {};

TEST_P(GeneratedSpacesByTarget, SizedByTheTargetAndMatchTheDefault) {
  // What each vector width tunes: column tiles of whole vectors, built for that target.
  const target::Target target = target::parse_target(GetParam());
  const int64_t lanes = target.float_lanes();
  TESSEL_SKIP_UNLESS_HOST_RUNS(target);
  TypedGraph t = transformer_pieces();
  for (const Task& task : auto_tasks_of(t.graph, target).tasks) {
    if (task.name.find("Tanh") == std::string::npos &&
        task.name.find("Softmax") == std::string::npos)
      continue;
    // Column tiles are whole vectors of the target's lanes.
    for (const Knob& knob : task.space.knobs()) {
      if (knob.name != "tile_j") continue;
      for (int64_t v : knob.values) EXPECT_EQ(v % lanes, 0) << task.name;
    }
    testing::expect_points_match_default(task, 3, target);
  }
}

INSTANTIATE_TEST_SUITE_P(X86, GeneratedSpacesByTarget,
                         ::testing::ValuesIn(tessel::testing::kVectorTargets));

TEST(GeneratedSpaces, CompiledWithGeneratedSchedulesAModelMatchesItsNodesRunOneByOne) {
  // Each kernel takes the schedule of a random point of its generated space, replayed from
  // its trace by the compiler as tuning records are; the outputs must equal the graph's
  // nodes evaluated one by one.
  TypedGraph t = transformer_pieces();
  TaskSet set = auto_tasks_of(t.graph);
  std::mt19937_64 rng(5);
  std::map<std::string, schedule::Trace> traces;
  for (const Task& task : set.tasks)
    traces.emplace(task.key, task.schedule_at(task.space.random_point(rng))->trace());
  int replayed = 0;
  compiler::CompileOptions options;
  options.choose_schedule =
      [&](const compiler::GroupKernel& kernel) -> std::optional<schedule::Trace> {
    auto found = traces.find(task_key(kernel, target_key(target::host())));
    if (found == traces.end()) return std::nullopt;
    ++replayed;
    return found->second;
  };
  runtime::Model model = compiler::jit_model(compiler::compile_graph(*set.graph, options));
  EXPECT_EQ(replayed, static_cast<int>(set.tasks.size()));
  runtime::NDArray x = compiler::testing::random_array({1, 24, 40}, 7);
  runtime::NDArray s = compiler::testing::random_array({2, 24, 40}, 8);
  std::vector<runtime::NDArray> expected = compiler::testing::run_unfused(t.graph, {&x, &s});
  std::vector<runtime::NDArray> outputs = model.run({&x, &s});
  ASSERT_EQ(outputs.size(), expected.size());
  for (size_t o = 0; o < outputs.size(); ++o)
    compiler::testing::expect_close(outputs[o], expected[o], 1e-4, 1e-4);
}

TEST(GeneratedSpaces, AOneDimensionalStageAtTheRootRunsInParallelVectors) {
  // Two outputs read exp(a) (kept: two readers), a vector too long to stay serial; every
  // point of its space computes what a plain loop computes.
  const int64_t n = 3 * schedules::kParallelMinElements + 5;
  te::Tensor a = te::placeholder({n}, ir::DataType::Float(32), "a");
  te::Tensor e = te::compute({n}, [&](te::Var i) { return ir::exp(a(i)); }, "e", {"i"});
  te::Tensor plus = te::compute({n}, [&](te::Var i) { return e(i) + 1.0f; }, "plus", {"i"});
  te::Tensor twice = te::compute({n}, [&](te::Var i) { return e(i) * 2.0f; }, "twice", {"i"});
  GeneratedKnobs declared;
  schedule::Schedule probe({plus, twice});
  schedule_generated(probe, declared, target::host());
  ASSERT_FALSE(declared.space().knobs.empty());
  std::vector<float> x(n), y(n), z(n);
  for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 97) / 50.0f - 1.0f;
  for (const schedules::KnobSpec& knob : declared.space().knobs) {
    for (int64_t value : knob.values) {
      schedules::KnobValues chosen;
      chosen.set(knob.name, value);
      GeneratedKnobs knobs(chosen);
      schedule::Schedule s({plus, twice});
      schedule_generated(s, knobs, target::host());
      runtime::NDArray in({n}, runtime::DType::Float(32)), out1({n}, runtime::DType::Float(32)),
          out2({n}, runtime::DType::Float(32));
      std::copy(x.begin(), x.end(), in.data_as<float>());
      driver::build(s, {a, plus, twice}, "k").run({in.data(), out1.data(), out2.data()});
      for (int64_t i = 0; i < n; ++i) {
        float expected = std::exp(x[i]);
        ASSERT_NEAR(out1.data_as<float>()[i], expected + 1.0f, 1e-5f * (expected + 1.0f))
            << knob.name << "=" << value << " at " << i;
        ASSERT_NEAR(out2.data_as<float>()[i], expected * 2.0f, 1e-5f * expected * 2.0f)
            << knob.name << "=" << value << " at " << i;
      }
    }
  }
}

TEST(GeneratedSpaces, TransferSamplesComeFromTasksWithTheSameKnobs) {
  // Generated spaces of one rule may name other knobs: only records whose points name the
  // task's knobs, in its order, teach its cost model.
  TypedGraph t = transformer_pieces();
  TaskSet set = auto_tasks_of(t.graph);
  const Task& task = task_named(set, "Tanh");
  testing::TempDir dir;
  RecordDatabase db(dir.file("records.db"));
  auto record = [&](const std::string& key, const std::string& template_name,
                    const std::string& point_json, double cost) {
    Record r;
    r.task_key = key;
    r.target = task.target;
    r.task_name = "other";
    r.template_name = template_name;
    r.point_json = point_json;
    r.costs = {cost};
    r.features.assign(kLoopFeatures + task.space.knobs().size(), 1.0f);
    db.add(r);
  };
  std::string same_knobs = json::write(task.space.to_json(task.space.point_at(0)));
  json::Object renamed = task.space.to_json(task.space.point_at(0));
  renamed.front().first = "another_knob";
  record("aaaa", task.template_name, same_knobs, 1.0);
  record("aaaa", task.template_name, same_knobs, 4.0);
  record("bbbb", task.template_name, json::write(renamed), 1.0);
  record("cccc", "auto.injective", same_knobs, 1.0);
  record(task.key, task.template_name, same_knobs, 1.0);  // the task's own
  std::vector<TransferSample> samples = transfer_samples(task, db);
  ASSERT_EQ(samples.size(), 2u);
  std::vector<double> labels = {samples[0].relative_throughput, samples[1].relative_throughput};
  std::sort(labels.begin(), labels.end());
  EXPECT_EQ(labels, (std::vector<double>{0.25, 1.0}));
}

}  // namespace
}  // namespace tessel::autotune

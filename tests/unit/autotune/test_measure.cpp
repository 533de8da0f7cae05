// Measurer: good candidates are timed; a wrong, a crashing and a hanging candidate are each
// recorded as failed with their reason, and measuring goes on; built candidates run on the
// runner the options name; a run faster than the machine's peak is a measurement fault.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <limits>
#include <thread>

#include "autotune/measure.h"
#include "autotune/peak.h"
#include "autotune/runner.h"
#include "autotune_test_util.h"
#include "support/error.h"
#include "te/compute.h"

namespace tessel::autotune {
namespace {

struct MatmulTask {
  compiler::testing::TypedGraph graph = testing::two_matmuls();
  TaskSet set = testing::tasks_of(graph.graph);
  const Task& task() const { return set.tasks.at(0); }
};

MeasureOptions quick() {
  MeasureOptions options;
  options.repeats = 2;
  options.min_repeat_seconds = 0.001;
  options.timeout_seconds = 2;
  return options;
}

TEST(Measure, TimesEveryRepeatOfAGoodCandidate) {
  MatmulTask m;
  Measurer measurer(m.task().kernel, quick());
  MeasureResult result = measurer.measure_default();
  ASSERT_TRUE(result.ok()) << result.error;
  ASSERT_EQ(result.costs.size(), 2u);
  for (double c : result.costs) EXPECT_GT(c, 0);
  EXPECT_GT(result.build_seconds, 0);
  EXPECT_EQ(result.mean_cost(), (result.costs[0] + result.costs[1]) / 2);
}

TEST(Measure, RelativeTimingCancelsTheMachinesDrift) {
  // The machine slows down 1x, 3x, 5x from one repeat to the next; the candidate always
  // takes twice the baseline's time. Timed relative to the baseline (10 ms alone), each
  // repeat reports about 20 ms; timed alone, the costs follow the drift. (Sleeps of tens
  // of milliseconds, so that a loaded machine's late wake-ups stay small beside them.)
  MeasureOptions options;
  options.repeats = 3;
  options.min_repeat_seconds = 0;
  int slowdown = 1;
  auto sleep_ms = [&](double ms) {
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms * slowdown));
  };
  auto candidate = [&] { sleep_ms(20); };
  auto baseline = [&] {
    sleep_ms(10);
    slowdown += 2;  // the drift, between one repeat and the next
  };
  std::vector<double> relative = time_repeats(candidate, 0.02, baseline, 0.01, options);
  ASSERT_EQ(relative.size(), 3u);
  for (double c : relative) EXPECT_NEAR(c, 0.02, 0.007);

  slowdown = 1;
  std::vector<double> alone =
      time_repeats([&] { candidate(), slowdown += 2; }, 0.02, {}, 0, options);
  ASSERT_EQ(alone.size(), 3u);
  EXPECT_GT(alone[2], 3 * alone[0]);
}

TEST(Measure, TheDefaultScheduleRanksLikeItselfAsACandidate) {
  // Its cost is its time over its own time just after, in units of the reference. Other
  // tests share the machine, so a single repeat may land beside a busy neighbour: the
  // median of several is what must agree.
  MatmulTask m;
  MeasureOptions options = quick();
  options.repeats = 9;
  Measurer measurer(m.task().kernel, options);
  double reference = measurer.measure_default().mean_cost();
  std::vector<MeasureResult> results = measurer.measure({m.task().kernel->schedule});
  ASSERT_TRUE(results[0].ok()) << results[0].error;
  std::vector<double> costs = results[0].costs;
  ASSERT_EQ(costs.size(), 9u);
  std::nth_element(costs.begin(), costs.begin() + 4, costs.end());
  double median = costs[4];
  EXPECT_GT(median, reference / 2);
  EXPECT_LT(median, reference * 2);
}

TEST(Measure, FlushingTheCachesTimesSingleRuns) {
  MatmulTask m;
  MeasureOptions options = quick();
  options.repeats = 4;
  options.flush_cache_bytes = size_t{4} << 20;
  Measurer measurer(m.task().kernel, options);
  MeasureResult result = measurer.measure_default();
  ASSERT_TRUE(result.ok()) << result.error;
  ASSERT_EQ(result.costs.size(), 4u);
  for (double c : result.costs) EXPECT_GT(c, 0);
}

TEST(Measure, ColdConstantsAreEvictedBeforeEveryRunOfCandidateAndBaseline) {
  MeasureOptions options;
  options.repeats = 3;
  options.min_repeat_seconds = 0;
  std::string log;
  std::vector<double> costs = time_repeats([&] { log += 'c'; }, 1e-3, [&] { log += 'd'; }, 1e-3,
                                           options, [&] { log += 'e'; });
  EXPECT_EQ(costs.size(), 3u);
  EXPECT_EQ(log, "ecedecedeced");

  // Evicting written-back lines keeps their values.
  std::vector<float> data(100000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i);
  evict_from_caches(data.data(), data.size() * sizeof(float));
  for (size_t i = 0; i < data.size(); ++i) ASSERT_EQ(data[i], static_cast<float>(i));

  // A kernel with constant weights is measured with them evicted, and its result checked.
  MatmulTask m;
  options = quick();
  options.cold_constants = true;
  Measurer measurer(m.task().kernel, options);
  std::vector<MeasureResult> results = measurer.measure({m.task().kernel->schedule});
  ASSERT_TRUE(results[0].ok()) << results[0].error;
  for (double c : results[0].costs) EXPECT_GT(c, 0);
}

TEST(Measure, AWrongCandidateIsCaught) {
  MatmulTask m;
  const compiler::GroupKernel& kernel = *m.task().kernel;
  Measurer measurer(m.task().kernel, quick());
  // Same inputs and output type, another computation: the sum over k is one term short.
  const te::Tensor& out = kernel.scheduler->outputs().at(0);
  const te::Tensor& x = kernel.args.at(0);
  const te::Tensor& packed = kernel.args.at(1);
  ASSERT_EQ(packed.ndim(), 3);
  int64_t panel = *ir::as_const_int(packed.shape()[2]);
  te::IterVar k = te::reduce_axis(31, "k");
  te::Tensor wrong =
      te::compute(out.shape(),
                  [&](te::Var i, te::Var j) {
                    return te::sum(x(i, k.var) * packed(j / panel, k.var, j % panel), {k});
                  },
                  "wrong", {"i", "j"});
  auto schedule = std::make_shared<schedule::Schedule>(std::vector<te::Tensor>{wrong});
  std::vector<MeasureResult> results = measurer.measure({schedule, kernel.schedule});
  EXPECT_FALSE(results[0].ok());
  EXPECT_EQ(results[0].error.rfind("wrong result: output 0 element", 0), 0u) << results[0].error;
  EXPECT_TRUE(results[0].costs.empty());
  EXPECT_TRUE(results[1].ok()) << results[1].error;
}

TEST(Measure, EqualInfinitiesMatchAndAnyOtherNonFiniteDifferenceIsWrong) {
  // A causal mask's scores hold -inf; a candidate giving the same -inf is right, and a
  // finite value, the opposite infinity or a NaN where the reference has -inf is wrong.
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const float kNaN = std::numeric_limits<float>::quiet_NaN();
  auto array_of = [](std::vector<float> values) {
    runtime::NDArray array({static_cast<int64_t>(values.size())}, runtime::DType::Float(32));
    std::copy(values.begin(), values.end(), array.data_as<float>());
    return array;
  };
  MeasureOptions options;
  runtime::NDArray reference = array_of({1.0f, -kInf, kInf, kNaN});
  EXPECT_EQ(compare_outputs(array_of({1.0f, -kInf, kInf, kNaN}), reference, options, 0), "");
  EXPECT_EQ(compare_outputs(array_of({1.0f + 1e-7f, -kInf, kInf, kNaN}), reference, options, 0),
            "");
  for (float wrong : {-1e30f, kInf, kNaN}) {
    std::string error = compare_outputs(array_of({1.0f, wrong, kInf, kNaN}), reference, options, 2);
    EXPECT_EQ(error.rfind("wrong result: output 2 element 1 is", 0), 0u) << error;
  }
  EXPECT_NE(compare_outputs(array_of({kInf, -kInf, kInf, kNaN}), reference, options, 0), "");
  EXPECT_NE(compare_outputs(array_of({1.0f, -kInf, kInf, 0.0f}), reference, options, 0), "");
}

TEST(Measure, CrashingAndHangingCandidatesFailAndMeasuringGoesOn) {
  MatmulTask m;
  MeasureOptions options = quick();
  options.timeout_seconds = 1;
  options.in_worker = [](size_t index) {
    if (index == 1) std::raise(SIGSEGV);
    if (index == 2)
      while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
  };
  Measurer measurer(m.task().kernel, options);
  const auto& s = m.task().kernel->schedule;
  auto start = std::chrono::steady_clock::now();
  std::vector<MeasureResult> results = measurer.measure({s, s, s, s});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(results[0].ok()) << results[0].error;
  EXPECT_EQ(results[1].error.rfind("crashed: signal 11", 0), 0u) << results[1].error;
  EXPECT_EQ(results[2].error.rfind("timed out after 1", 0), 0u) << results[2].error;
  EXPECT_TRUE(results[3].ok()) << results[3].error;
  EXPECT_LT(seconds, 30);  // the hang cost its time-out, not more
}

TEST(Measure, AnIllegalScheduleFailsItsBuildOnly) {
  MatmulTask m;
  Measurer measurer(m.task().kernel, quick());
  // A candidate writing an output of another shape is refused before it runs.
  te::Tensor x = m.task().kernel->args.at(0);
  te::Tensor other = te::compute({1}, [&](te::Var i) { return x(i, 0); }, "other", {"i"});
  auto schedule = std::make_shared<schedule::Schedule>(std::vector<te::Tensor>{other});
  std::vector<MeasureResult> results = measurer.measure({schedule, m.task().kernel->schedule});
  EXPECT_EQ(results[0].error.rfind("build failed:", 0), 0u) << results[0].error;
  EXPECT_TRUE(results[1].ok()) << results[1].error;
}

TEST(Measure, CandidatesRunOnTheRunnerTheOptionsName) {
  // A runner that counts what it runs and hands it to the local one: the Measurer builds,
  // then gives every built candidate and the default to the runner it was given.
  struct CountingRunner : Runner {
    mutable std::vector<size_t> indices;
    LocalRunner local;
    MeasureResult run(const driver::Kernel& candidate, const Workload& workload,
                      const MeasureOptions& options, size_t index) const override {
      indices.push_back(index);
      return local.run(candidate, workload, options, index);
    }
  };
  MatmulTask m;
  auto runner = std::make_shared<CountingRunner>();
  MeasureOptions options = quick();
  options.runner = runner;
  Measurer measurer(m.task().kernel, options);
  ASSERT_EQ(runner->indices, std::vector<size_t>{Runner::kDefault});
  te::Tensor x = m.task().kernel->args.at(0);
  te::Tensor other = te::compute({1}, [&](te::Var i) { return x(i, 0); }, "other", {"i"});
  auto unbuildable = std::make_shared<schedule::Schedule>(std::vector<te::Tensor>{other});
  const auto& s = m.task().kernel->schedule;
  std::vector<MeasureResult> results = measurer.measure({s, unbuildable, s});
  EXPECT_TRUE(results[0].ok() && results[2].ok());
  // The candidate that did not build never reached the runner.
  EXPECT_EQ(runner->indices, (std::vector<size_t>{Runner::kDefault, 0, 2}));
}

constexpr const char* kNoClock = "no core clock measurement on this architecture";

TEST(Peak, TheMeasuredClockIsACoresAndAProductRunsBelowThePeak) {
  PeakBound bound = measure_peak(target::host(), 1);
  if (bound.flops_per_cycle <= 0) GTEST_SKIP() << kNoClock;
  EXPECT_EQ(bound.flops_per_cycle, target::host().peak_flops_per_cycle(32));
  EXPECT_GT(bound.clock_hz, 0.2e9);
  EXPECT_LT(bound.clock_hz, 8e9);
  // The default schedule of a 256^3 product on one thread: a good fraction of the bound,
  // and never above it.
  compiler::testing::TypedGraph graph = testing::square_matmul(256);
  TaskSet set = testing::tasks_of(graph.graph);
  MeasureOptions options = quick();
  options.threads = 1;
  options.repeats = 5;
  options.min_repeat_seconds = 0.01;
  Measurer measurer(set.tasks.at(0).kernel, options);
  double seconds = measurer.measure_default().mean_cost();
  double achieved = set.tasks.at(0).flops / seconds;
  EXPECT_EQ(check_peak(set.tasks.at(0).flops, seconds, bound), "");
  EXPECT_GT(achieved, 0.1 * bound.flops()) << "the bound is far above what a product reaches";
  // Checked against a bound measured at a quarter of the clock, the run looks too fast: the
  // clock is measured again, and the run is no fault.
  PeakBound stale = bound;
  stale.clock_hz = bound.clock_hz / 4;
  if (achieved > stale.flops()) {
    EXPECT_EQ(check_peak(set.tasks.at(0).flops, seconds, stale), "");
    EXPECT_GT(stale.clock_hz, bound.clock_hz / 2);
  }
  EXPECT_EQ(peak_fault(1e9, 1.0, 2e9), "");
  EXPECT_EQ(peak_fault(3e9, 1.0, 2e9),
            "measurement fault: 3.0 GFLOP/s is above the peak of 2.0 GFLOP/s (the threads' FMA "
            "units at the measured clock)");
  EXPECT_EQ(peak_fault(3e9, 1.0, 0), "");  // unchecked
}

TEST(Measure, ARunFasterThanThePeakIsAMeasurementFault) {
  // A runner whose timing goes wrong for candidate 0: it reports a thousandth of the time.
  struct FaultyRunner : Runner {
    LocalRunner local;
    MeasureResult run(const driver::Kernel& candidate, const Workload& workload,
                      const MeasureOptions& options, size_t index) const override {
      MeasureResult result = local.run(candidate, workload, options, index);
      if (index == 0)
        for (double& cost : result.costs) cost /= 1000;
      return result;
    }
  };
  PeakBound peak =
      measure_peak(target::host(), static_cast<int>(std::thread::hardware_concurrency()));
  if (peak.flops_per_cycle <= 0) GTEST_SKIP() << kNoClock;
  MatmulTask m;
  MeasureOptions options = quick();
  options.runner = std::make_shared<FaultyRunner>();
  options.peak = peak;
  Measurer measurer(m.task().kernel, options);
  const auto& s = m.task().kernel->schedule;
  std::vector<MeasureResult> results = measurer.measure({s, s});
  EXPECT_EQ(results[0].error.rfind("measurement fault: ", 0), 0u) << results[0].error;
  EXPECT_NE(results[0].error.find("above the peak of"), std::string::npos);
  EXPECT_TRUE(results[1].ok()) << results[1].error;
  // The default's own time is the unit of every cost: above the peak, it is no unit.
  options.runner = nullptr;
  options.peak = {1e-9, 1e9};  // one operation per second at a clock of 1 GHz
  try {
    Measurer faulty(m.task().kernel, options);
    ADD_FAILURE() << "a default schedule faster than the peak was accepted";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("measurement fault"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tessel::autotune

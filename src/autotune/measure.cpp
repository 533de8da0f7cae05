// Measurer: the task's arguments and reference, the builder and the runner; checks and timing.
#include "autotune/measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include "autotune/builder.h"
#include "autotune/peak.h"
#include "autotune/runner.h"
#include "autotune/task.h"
#include "driver/build.h"
#include "runtime/thread_pool.h"
#include "support/error.h"

namespace tessel::autotune {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Fills `array` with values every operator accepts: floats in [-1, 1], integers 0 (valid
/// indices and counts).
void fill_random(runtime::NDArray& array, std::mt19937& rng) {
  std::memset(array.data(), 0, static_cast<size_t>(array.nbytes()));
  if (array.dtype() != runtime::DType::Float(32)) return;
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  float* data = array.data_as<float>();
  for (int64_t i = 0; i < array.size(); ++i) data[i] = uniform(rng);
}

/// Evicts the caches by writing a buffer larger than them.
void evict_caches(std::vector<char>& buffer) {
  volatile char* bytes = buffer.data();
  for (size_t i = 0; i < buffer.size(); i += 64) bytes[i] = static_cast<char>(bytes[i] + 1);
}

/// Runs `run` `number` times, each timed alone (one run after evicting the caches when
/// `flush` is not empty; each after `before_each_run` when given), and returns the fastest
/// run's seconds: the machine's interruptions only ever add time, so the minimum is the
/// estimate they disturb least.
double time_runs(const std::function<void()>& run, int64_t number, std::vector<char>& flush,
                 const std::function<void()>& before_each_run) {
  if (!flush.empty()) evict_caches(flush);
  double fastest = std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < number; ++i) {
    if (before_each_run) before_each_run();
    auto begin = Clock::now();
    run();
    fastest = std::min(fastest, seconds_since(begin));
  }
  return fastest;
}

/// How many runs back to back last min_repeat_seconds given that one takes `seconds` (one
/// when each run follows a cache flush).
int64_t runs_per_repeat(double seconds, const MeasureOptions& options) {
  if (options.flush_cache_bytes > 0) return 1;
  return std::max<int64_t>(
      1, static_cast<int64_t>(std::ceil(options.min_repeat_seconds / std::max(seconds, 1e-9))));
}

}  // namespace

std::vector<double> time_repeats(const std::function<void()>& run, double first_seconds,
                                 const std::function<void()>& baseline, double baseline_seconds,
                                 const MeasureOptions& options,
                                 const std::function<void()>& before_each_run) {
  std::vector<char> flush(options.flush_cache_bytes);
  int64_t number = runs_per_repeat(first_seconds, options);
  int64_t baseline_number = baseline ? runs_per_repeat(baseline_seconds, options) : 0;
  std::vector<double> costs;
  for (int r = 0; r < options.repeats; ++r) {
    double seconds = time_runs(run, number, flush, before_each_run);
    if (baseline)
      seconds *= baseline_seconds / time_runs(baseline, baseline_number, flush, before_each_run);
    costs.push_back(seconds);
  }
  return costs;
}

void evict_from_caches(const void* data, size_t bytes) {
  // Every 64-byte line the range touches, the first and last ones partly.
  uintptr_t first = reinterpret_cast<uintptr_t>(data) & ~uintptr_t{63};
  uintptr_t end = reinterpret_cast<uintptr_t>(data) + bytes;
  for (uintptr_t line = first; line < end; line += 64) {
    const char* address = reinterpret_cast<const char*>(line);
#if defined(__x86_64__)
    __builtin_ia32_clflush(address);
#elif defined(__aarch64__)
    asm volatile("dc civac, %0" : : "r"(address) : "memory");
#else
#error "evict_from_caches: no cache-line flush instruction known for this architecture"
#endif
  }
#if defined(__x86_64__)
  __builtin_ia32_mfence();
#elif defined(__aarch64__)
  asm volatile("dsb ish" : : : "memory");
#endif
}

std::string compare_outputs(const runtime::NDArray& output, const runtime::NDArray& reference,
                            const MeasureOptions& options, size_t index) {
  if (reference.dtype() != runtime::DType::Float(32)) {
    if (std::memcmp(output.data(), reference.data(), static_cast<size_t>(reference.nbytes())) == 0)
      return "";
    return "wrong result: output " + std::to_string(index) + " differs from the default schedule's";
  }
  const float* out = output.data_as<float>();
  const float* ref = reference.data_as<float>();
  double scale = 0;
  for (int64_t i = 0; i < reference.size(); ++i)
    if (std::isfinite(ref[i])) scale = std::max(scale, std::fabs(static_cast<double>(ref[i])));
  for (int64_t i = 0; i < reference.size(); ++i) {
    if (out[i] == ref[i] || (std::isnan(ref[i]) && std::isnan(out[i]))) continue;
    double diff = std::fabs(static_cast<double>(out[i]) - ref[i]);
    bool both_finite = std::isfinite(ref[i]) && std::isfinite(out[i]);
    if (!both_finite ||
        !(diff <= options.rtol * std::fabs(static_cast<double>(ref[i])) + options.atol * scale)) {
      std::ostringstream text;
      text << "wrong result: output " << index << " element " << i << " is " << out[i]
           << ", the default schedule gives " << ref[i];
      return text.str();
    }
  }
  return "";
}

double MeasureResult::mean_cost() const {
  if (!ok() || costs.empty()) return std::numeric_limits<double>::infinity();
  double sum = 0;
  for (double c : costs) sum += c;
  return sum / static_cast<double>(costs.size());
}

Measurer::Measurer(std::shared_ptr<const compiler::GroupKernel> kernel, MeasureOptions options)
    : kernel_(std::move(kernel)), options_(std::move(options)) {
  if (options_.threads > 0) runtime::set_num_threads(options_.threads);
  std::mt19937 rng(20261202);
  const compiler::GroupKernel& k = *kernel_;
  for (size_t a = 0; a < k.args.size(); ++a) {
    const graph::Value* value = k.arg_values[a];
    graph::TensorType type = a < k.num_inputs ? value->type : k.output_types[a - k.num_inputs];
    runtime::NDArray array(type.shape(), graph::to_runtime_dtype(type.dtype));
    if (a < k.num_inputs && value->constant)
      std::memcpy(array.data(), value->constant->data(), static_cast<size_t>(array.nbytes()));
    else
      fill_random(array, rng);
    args_.push_back(std::move(array));
  }
  auto start = Clock::now();
  default_kernel_ = std::make_unique<driver::Kernel>(
      driver::build(*k.schedule, k.args, "reference", build_options()));
  default_build_seconds_ = seconds_since(start);
  std::vector<void*> pointers;
  for (runtime::NDArray& array : args_) pointers.push_back(array.data());
  default_kernel_->run(pointers);
  for (size_t a = k.num_inputs; a < args_.size(); ++a) reference_.push_back(args_[a].copy());
  flops_ = count_flops(k.scheduler->outputs());
  peak_ = options_.peak;
  // The default's time is the unit of every candidate's cost: one above the peak is measured
  // again (a few times: the fault is the machine's, and passes).
  std::string fault;
  for (int attempt = 0; attempt < 3; ++attempt) {
    default_result_ = runner().run(*default_kernel_, workload(), options_, Runner::kDefault);
    if (!default_result_.ok())
      TESSEL_INTERNAL_ERROR("the default schedule of a kernel failed to run: ",
                            default_result_.error);
    fault = check_peak(flops_, default_result_.mean_cost(), peak_);
    if (fault.empty()) break;
  }
  if (!fault.empty()) TESSEL_USER_ERROR("the default schedule's time, three times: ", fault);
  default_result_.build_seconds = default_build_seconds_;
  default_seconds_ = default_result_.mean_cost();
}

std::vector<MeasureResult> Measurer::measure(
    const std::vector<std::shared_ptr<schedule::Schedule>>& candidates) {
  // Every build thread is joined before any worker is forked.
  std::vector<BuiltCandidate> built =
      build_candidates(*kernel_, candidates, build_options(), options_.build_jobs);
  std::vector<MeasureResult> results(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (built[i].kernel) {
      results[i] = runner().run(*built[i].kernel, workload(), options_, i);
      if (results[i].ok()) results[i].error = check_peak(flops_, results[i].mean_cost(), peak_);
    } else {
      results[i].error = built[i].error;
    }
    results[i].build_seconds = built[i].seconds;
  }
  return results;
}

const Runner& Measurer::runner() const {
  static const LocalRunner local;
  return options_.runner ? *options_.runner : local;
}

Workload Measurer::workload() {
  return Workload{*kernel_, args_, reference_, *default_kernel_, default_seconds_};
}

Measurer::~Measurer() = default;

driver::BuildOptions Measurer::build_options() const {
  driver::BuildOptions build;
  build.target = options_.target;
  return build;
}

MeasureResult Measurer::measure_default() const {
  return default_result_;
}

double Measurer::paired_ratio(const std::shared_ptr<schedule::Schedule>& candidate, int repeats) {
  std::vector<BuiltCandidate> built =
      build_candidates(*kernel_, {candidate}, build_options(), options_.build_jobs);
  if (!built[0].kernel) return std::numeric_limits<double>::infinity();
  MeasureOptions paired = options_;
  paired.repeats = repeats;
  paired.relative_to_default = true;
  MeasureResult result = runner().run(*built[0].kernel, workload(), paired, 0);
  if (!result.ok() || result.costs.empty()) return std::numeric_limits<double>::infinity();
  std::vector<double> ratios = result.costs;
  for (double& r : ratios) r /= default_seconds_;
  std::sort(ratios.begin(), ratios.end());
  size_t n = ratios.size();
  return n % 2 ? ratios[n / 2] : 0.5 * (ratios[n / 2 - 1] + ratios[n / 2]);
}

}  // namespace tessel::autotune

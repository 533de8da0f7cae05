// Measurer: parallel builds, one forked worker per candidate run, checks and timing.
#include "autotune/measure.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <thread>

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

/// Writes all of `text` to `fd` (the worker's report).
void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

/// Reads the worker's report until it closes the pipe or `deadline` passes; false on time-out.
bool read_report(int fd, Clock::time_point deadline, std::string& report) {
  char buffer[4096];
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    report.append(buffer, static_cast<size_t>(n));
  }
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status))
    return "crashed: signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "worker exited with status " + std::to_string(WEXITSTATUS(status)) + " and no report";
}

/// Whether `candidate` writes outputs of the same types as `reference`'s.
bool same_outputs(const std::vector<te::Tensor>& candidate,
                  const std::vector<te::Tensor>& reference) {
  if (candidate.size() != reference.size()) return false;
  for (size_t o = 0; o < candidate.size(); ++o) {
    if (candidate[o].dtype() != reference[o].dtype() || candidate[o].ndim() != reference[o].ndim())
      return false;
    for (int d = 0; d < candidate[o].ndim(); ++d) {
      const int64_t* a = ir::as_const_int(candidate[o].shape()[d]);
      const int64_t* b = ir::as_const_int(reference[o].shape()[d]);
      if (!a || !b || *a != *b) return false;
    }
  }
  return true;
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
  const driver::Kernel& reference = *default_kernel_;
  default_result_ =
      run_in_worker([&](const std::vector<void*>& a) { reference.run(a); }, kDefaultIndex);
  default_result_.build_seconds = default_build_seconds_;
  if (!default_result_.ok())
    TESSEL_INTERNAL_ERROR("the default schedule of a kernel failed to run: ",
                          default_result_.error);
  default_seconds_ = default_result_.mean_cost();
}

MeasureResult Measurer::run_in_worker(const std::function<void(const std::vector<void*>&)>& run,
                                      size_t index) {
  int fds[2];
  if (::pipe(fds) != 0) TESSEL_INTERNAL_ERROR("pipe failed: ", std::strerror(errno));
  pid_t pid = ::fork();
  if (pid < 0) TESSEL_INTERNAL_ERROR("fork failed: ", std::strerror(errno));
  if (pid == 0) {
    // The worker: the kernel, inputs and reference are this process's copies.
    ::close(fds[0]);
    std::string report;
    try {
      if (options_.in_worker && index != kDefaultIndex) options_.in_worker(index);
      std::vector<void*> pointers;
      for (runtime::NDArray& array : args_) pointers.push_back(array.data());
      const compiler::GroupKernel& k = *kernel_;
      // Outputs start as NaN so that elements the candidate never writes are caught.
      for (size_t a = k.num_inputs; a < args_.size(); ++a)
        std::memset(args_[a].data(), 0xff, static_cast<size_t>(args_[a].nbytes()));
      auto start = Clock::now();
      run(pointers);
      double first = seconds_since(start);
      for (size_t o = 0; o < reference_.size() && report.empty(); ++o)
        report = compare_outputs(args_[k.num_inputs + o], reference_[o], options_, o);
      std::function<void()> baseline;
      if (index != kDefaultIndex && options_.relative_to_default)
        baseline = [&] { default_kernel_->run(pointers); };
      std::function<void()> evict_constants;
      if (options_.cold_constants)
        evict_constants = [&] {
          for (size_t a = 0; a < k.num_inputs; ++a)
            if (k.arg_values[a]->constant)
              evict_from_caches(args_[a].data(), static_cast<size_t>(args_[a].nbytes()));
        };
      if (report.empty()) {
        std::ostringstream costs;
        costs.precision(9);
        costs << "ok";
        for (double c : time_repeats([&] { run(pointers); }, first, baseline, default_seconds_,
                                     options_, evict_constants))
          costs << " " << c;
        report = costs.str();
      }
    } catch (const std::exception& e) {
      report = std::string("run failed: ") + e.what();
    }
    write_all(fds[1], report);
    ::_exit(0);  // no destructors or atexit handlers of the parent's state
  }
  ::close(fds[1]);
  std::string report;
  bool finished =
      read_report(fds[0],
                  Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(options_.timeout_seconds)),
                  report);
  ::close(fds[0]);
  if (!finished) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  MeasureResult result;
  if (!finished) {
    result.error = "timed out after " + std::to_string(options_.timeout_seconds) + " s";
  } else if (report.rfind("ok", 0) == 0) {
    std::istringstream costs(report.substr(2));
    for (double c; costs >> c;) result.costs.push_back(c);
  } else {
    result.error = report.empty() ? describe_exit(status) : report;
  }
  return result;
}

std::vector<MeasureResult> Measurer::measure(
    const std::vector<std::shared_ptr<schedule::Schedule>>& candidates) {
  std::vector<MeasureResult> results(candidates.size());
  std::vector<std::unique_ptr<driver::Kernel>> built(candidates.size());
  // Builds in parallel; every worker thread is joined before any process is forked.
  std::atomic<size_t> next{0};
  auto build_some = [&] {
    for (size_t i; (i = next++) < candidates.size();) {
      auto start = Clock::now();
      try {
        if (!same_outputs(candidates[i]->outputs(), kernel_->scheduler->outputs()))
          TESSEL_INTERNAL_ERROR("candidate ", i, " writes outputs of other types than the task's");
        // The kernel's inputs, then the candidate DAG's outputs (of the same types).
        std::vector<te::Tensor> args(
            kernel_->args.begin(),
            kernel_->args.begin() + static_cast<std::ptrdiff_t>(kernel_->num_inputs));
        for (const te::Tensor& out : candidates[i]->outputs()) args.push_back(out);
        built[i] = std::make_unique<driver::Kernel>(
            driver::build(*candidates[i], args, "candidate", build_options()));
      } catch (const std::exception& e) {
        results[i].error = std::string("build failed: ") + e.what();
      }
      results[i].build_seconds = seconds_since(start);
    }
  };
  int jobs = options_.build_jobs > 0
                 ? options_.build_jobs
                 : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> threads;
  for (int j = 1; j < std::min<int>(jobs, static_cast<int>(candidates.size())); ++j)
    threads.emplace_back(build_some);
  build_some();
  for (std::thread& t : threads) t.join();

  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!built[i]) continue;
    const driver::Kernel& kernel = *built[i];
    double build_seconds = results[i].build_seconds;
    results[i] = run_in_worker([&](const std::vector<void*>& args) { kernel.run(args); }, i);
    results[i].build_seconds = build_seconds;
  }
  return results;
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

}  // namespace tessel::autotune

// Measuring candidate schedules of a task so that no candidate can break the tuner.
//
// Candidates are built (lowered, optimised, JIT-compiled) in parallel threads by the builder
// (builder.h), then run one at a time by a runner (runner.h; the local one forks a worker
// process for each): a candidate that crashes, hangs past
// the time-out or computes other numbers than the task's default schedule (checked on
// random inputs) is reported as failed with the reason, and the tuner goes on. A good
// candidate is timed for a fixed number of repeats, each long enough to be measurable, or
// each one run after the caches were flushed.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "autotune/peak.h"
#include "compiler/group_kernel.h"
#include "driver/build.h"
#include "runtime/ndarray.h"
#include "schedule/schedule.h"

namespace tessel::autotune {

class Runner;
struct Workload;

struct MeasureOptions {
  int threads = 0;  ///< threads the kernels run with (0: the runtime's default)
  /// The build target; it must run on this machine.
  target::Target target = target::host();
  int repeats = 3;                   ///< timed repeats per candidate
  double min_repeat_seconds = 0.02;  ///< each repeat runs the kernel at least this long and
                                     ///< gives its fastest run
  /// When non-zero, each repeat is one run after writing this many bytes (more than the
  /// caches hold): weights and inputs come from memory, as they do inside a large model.
  size_t flush_cache_bytes = 0;
  /// Before each timed run, the kernel's constant inputs (its weights) are evicted from the
  /// caches, line by line, untimed: inside a model whose weights exceed the caches each
  /// kernel finds its weights in memory but its activations, just written, cached.
  bool cold_constants = false;
  double timeout_seconds = 10;  ///< per candidate run (its build excluded)
  int build_jobs = 0;           ///< candidates built at once (0: one per hardware thread)
  double rtol = 1e-3;           ///< allowed difference from the default schedule's output,
  double atol = 1e-4;           ///< |x - ref| <= rtol*|ref| + atol*max|ref|
  /// Each repeat of a candidate also times the default schedule right after it, and the
  /// candidate's cost is its time relative to the default's then, in units of the default's
  /// time measured once when the Measurer was made. A VM's speed drifts by tens of percent
  /// over seconds; a ratio measured within milliseconds does not, so candidates measured
  /// minutes apart rank as if measured side by side (at twice the measuring time).
  bool relative_to_default = true;
  /// The floating-point rate no run can exceed (peak.h: the threads' FMA units at the core's
  /// clock); a candidate measured faster (at the highest clock seen) is failed as a
  /// measurement fault, and the default schedule measured again. Default: unchecked.
  PeakBound peak;
  /// Runs in the worker process before candidate `index` runs; tests inject crashes and
  /// hangs with it.
  std::function<void(size_t index)> in_worker;
  /// Where the candidates run (runner.h); nullptr: a LocalRunner, a worker process forked
  /// per candidate on this machine.
  std::shared_ptr<const Runner> runner;
};

struct MeasureResult {
  std::vector<double> costs;  ///< seconds per run, one per repeat; empty when failed
  std::string error;          ///< why the candidate failed; empty when it did not
  double build_seconds = 0;
  bool ok() const { return error.empty(); }
  /// Mean of costs; +infinity when failed.
  double mean_cost() const;
};

/// The seconds per run of `run` in each of options.repeats repeats: the fastest of the runs
/// made back to back for min_repeat_seconds (given that one took `first_seconds`), or one
/// run after a cache flush.
/// With a `baseline` (the default schedule, taking `baseline_seconds` per run when measured
/// alone), each repeat times the baseline right after `run` and reports run's time over the
/// baseline's, times baseline_seconds. `before_each_run`, when given, runs untimed before
/// every run of either.
std::vector<double> time_repeats(const std::function<void()>& run, double first_seconds,
                                 const std::function<void()>& baseline, double baseline_seconds,
                                 const MeasureOptions& options,
                                 const std::function<void()>& before_each_run = {});

/// Evicts the bytes [data, data + bytes) from every level of the caches (clflush on x86-64,
/// dc civac on AArch64).
void evict_from_caches(const void* data, size_t bytes);

/// Why `output` differs from `reference` (output number `index`), or "" when it matches:
/// float elements within rtol of themselves plus atol of the reference's largest finite
/// magnitude, equal infinities and NaN against NaN included; other types bit for bit.
std::string compare_outputs(const runtime::NDArray& output, const runtime::NDArray& reference,
                            const MeasureOptions& options, size_t index);

class Measurer {
 public:
  /// Random inputs for `kernel` (its constant arguments keep their values), the outputs of
  /// its default schedule on them (the reference every candidate must match) and the
  /// default's time per run (in a worker process like the candidates').
  Measurer(std::shared_ptr<const compiler::GroupKernel> kernel, MeasureOptions options);
  ~Measurer();

  /// Builds and runs the candidates (schedules of the kernel's DAG, or of a DAG with the
  /// same inputs and output types); one result each.
  std::vector<MeasureResult> measure(
      const std::vector<std::shared_ptr<schedule::Schedule>>& candidates);
  /// The default schedule's measurement (made once, with the reference): the baseline for
  /// speed-ups and the unit of relative costs.
  MeasureResult measure_default() const;
  /// `candidate`'s time over the default's, each of `repeats` repeats timing the default
  /// right after the candidate (whatever options().relative_to_default says): the median of
  /// the ratios, or +infinity when the candidate fails.
  double paired_ratio(const std::shared_ptr<schedule::Schedule>& candidate, int repeats);

  const MeasureOptions& options() const { return options_; }

 private:
  /// How candidates and the default are built (for options().target).
  driver::BuildOptions build_options() const;
  /// options().runner, or the local one.
  const Runner& runner() const;
  /// The arguments, reference and baseline candidates are measured on.
  Workload workload();

  std::shared_ptr<const compiler::GroupKernel> kernel_;
  MeasureOptions options_;
  std::vector<runtime::NDArray> args_;       ///< inputs, then outputs
  std::vector<runtime::NDArray> reference_;  ///< outputs of the default schedule
  std::unique_ptr<driver::Kernel> default_kernel_;
  double default_build_seconds_ = 0;
  MeasureResult default_result_;
  double default_seconds_ = 0;  ///< the default's mean time per run
  double flops_ = 0;            ///< floating-point operations per run (task.h: count_flops)
  PeakBound peak_;              ///< options().peak, its clock raised to the highest seen
};

}  // namespace tessel::autotune

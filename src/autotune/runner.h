// The runner of the measurement path: a built candidate checked against the default
// schedule's outputs and timed. LocalRunner runs each candidate in a worker process forked
// for it, so that a crash or a hang fails that candidate only; runners on other machines
// (qemu, devices, a cluster) implement the same interface.
#pragma once

#include <cstddef>
#include <vector>

#include "autotune/measure.h"
#include "compiler/group_kernel.h"
#include "driver/build.h"
#include "runtime/ndarray.h"

namespace tessel::autotune {

/// What a candidate is measured on: the kernel's arguments (inputs, then outputs), the
/// default schedule's outputs on them, and the default kernel, the baseline of relative
/// costs (baseline_seconds its mean time per run; 0 while the default itself is measured).
struct Workload {
  const compiler::GroupKernel& kernel;
  std::vector<runtime::NDArray>& args;
  const std::vector<runtime::NDArray>& reference;
  const driver::Kernel& baseline;
  double baseline_seconds = 0;
};

class Runner {
 public:
  /// The index run() is given for the default schedule (no injected faults, no baseline).
  static constexpr size_t kDefault = static_cast<size_t>(-1);
  virtual ~Runner() = default;
  /// Checks `candidate` on the workload against its reference, then times it as `options`
  /// say. Never throws for a candidate's failure: the result says why it failed.
  virtual MeasureResult run(const driver::Kernel& candidate, const Workload& workload,
                            const MeasureOptions& options, size_t index) const = 0;
};

/// One worker process forked per candidate, killed at options.timeout_seconds.
class LocalRunner final : public Runner {
 public:
  MeasureResult run(const driver::Kernel& candidate, const Workload& workload,
                    const MeasureOptions& options, size_t index) const override;
};

}  // namespace tessel::autotune

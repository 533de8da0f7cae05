// The builder of the measurement path: candidate schedules of a task's kernel lowered,
// optimised and compiled for the target, in parallel threads. What it builds, a Runner
// (runner.h) checks and times.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/group_kernel.h"
#include "driver/build.h"
#include "schedule/schedule.h"

namespace tessel::autotune {

/// A candidate built: its kernel, or why the build failed, and how long it took.
struct BuiltCandidate {
  std::unique_ptr<driver::Kernel> kernel;
  std::string error;
  double seconds = 0;
};

/// Builds `candidates` (schedules of `kernel`'s DAG, or of a DAG with the same inputs and
/// output types) with `build`, in `jobs` threads (0: one per hardware thread), all joined
/// before it returns. A candidate that does not build has its error set; none throws.
std::vector<BuiltCandidate> build_candidates(
    const compiler::GroupKernel& kernel,
    const std::vector<std::shared_ptr<schedule::Schedule>>& candidates,
    const driver::BuildOptions& build, int jobs);

}  // namespace tessel::autotune

// build_candidates: parallel builds of candidate schedules.
#include "autotune/builder.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>

#include "support/error.h"

namespace tessel::autotune {
namespace {

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

}  // namespace

std::vector<BuiltCandidate> build_candidates(
    const compiler::GroupKernel& kernel,
    const std::vector<std::shared_ptr<schedule::Schedule>>& candidates,
    const driver::BuildOptions& build, int jobs) {
  std::vector<BuiltCandidate> built(candidates.size());
  std::atomic<size_t> next{0};
  auto build_some = [&] {
    for (size_t i; (i = next++) < candidates.size();) {
      auto start = std::chrono::steady_clock::now();
      try {
        if (!same_outputs(candidates[i]->outputs(), kernel.scheduler->outputs()))
          TESSEL_INTERNAL_ERROR("candidate ", i, " writes outputs of other types than the task's");
        // The kernel's inputs, then the candidate DAG's outputs (of the same types).
        std::vector<te::Tensor> args(
            kernel.args.begin(),
            kernel.args.begin() + static_cast<std::ptrdiff_t>(kernel.num_inputs));
        for (const te::Tensor& out : candidates[i]->outputs()) args.push_back(out);
        built[i].kernel = std::make_unique<driver::Kernel>(
            driver::build(*candidates[i], args, "candidate", build));
      } catch (const std::exception& e) {
        built[i].error = std::string("build failed: ") + e.what();
      }
      built[i].seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
  };
  if (jobs <= 0) jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> threads;
  for (int j = 1; j < std::min<int>(jobs, static_cast<int>(candidates.size())); ++j)
    threads.emplace_back(build_some);
  build_some();
  for (std::thread& t : threads) t.join();
  return built;
}

}  // namespace tessel::autotune

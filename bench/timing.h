// Timing helpers for benchmarks: median of repeated runs after a warm-up.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace tessel::bench {

/// Runs `fn` a few times to warm up, then repeatedly for about `budget_s` seconds (at least
/// `min_runs` times) and returns the median run time in seconds.
inline double median_seconds(const std::function<void()>& fn, double budget_s = 1.0,
                             int min_runs = 10) {
  using clock = std::chrono::steady_clock;
  for (int i = 0; i < 3; ++i) fn();
  std::vector<double> times;
  auto start = clock::now();
  while (static_cast<int>(times.size()) < min_runs ||
         std::chrono::duration<double>(clock::now() - start).count() < budget_s) {
    auto t0 = clock::now();
    fn();
    times.push_back(std::chrono::duration<double>(clock::now() - t0).count());
    if (times.size() >= 1000) break;
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

}  // namespace tessel::bench

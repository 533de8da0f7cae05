// measure_core_clock_hz (a dependent addition chain), the bound and the fault check.
#include "autotune/peak.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <sstream>

namespace tessel::autotune {
namespace {

using Clock = std::chrono::steady_clock;

// Eight dependent additions of a register the compiler cannot see the value of (an addition
// of an immediate may be folded away by a renamer, as on Golden Cove cores).
#if defined(__x86_64__)
#define TESSEL_ADD8                                                                              \
  "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, " \
  "%0\n\tadd %1, %0\n\t"
#elif defined(__aarch64__)
#define TESSEL_ADD8                                                                            \
  "add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\t" \
  "add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\t"
#endif

#ifdef TESSEL_ADD8
constexpr int64_t kAddsPerBlock = 64;

/// Seconds `blocks` blocks of kAddsPerBlock dependent additions take.
double time_addition_chain(int64_t blocks, uint64_t step) {
  uint64_t value = 0;
  auto begin = Clock::now();
  for (int64_t b = 0; b < blocks; ++b)
    asm volatile(TESSEL_ADD8 TESSEL_ADD8 TESSEL_ADD8 TESSEL_ADD8 TESSEL_ADD8 TESSEL_ADD8 TESSEL_ADD8
                     TESSEL_ADD8
                 : "+r"(value)
                 : "r"(step));
  double seconds = std::chrono::duration<double>(Clock::now() - begin).count();
  asm volatile("" : : "r"(value));
  return seconds;
}
#endif

}  // namespace

double measure_core_clock_hz() {
#ifdef TESSEL_ADD8
  constexpr int64_t kBlocks = 40000;  // 2.56 million cycles: about a millisecond
  volatile uint64_t step = 1;
  time_addition_chain(kBlocks, step);  // the clock ramps up
  double fastest = 1e30;
  for (int round = 0; round < 7; ++round)
    fastest = std::min(fastest, time_addition_chain(kBlocks, step));
  return static_cast<double>(kBlocks * kAddsPerBlock) / fastest;
#else
  return 0;
#endif
}

PeakBound measure_peak(const target::Target& target, int threads) {
  double clock = measure_core_clock_hz();
  if (clock <= 0) return {};
  return {static_cast<double>(threads) * static_cast<double>(target.peak_flops_per_cycle(32)),
          clock};
}

std::string peak_fault(double flops, double seconds, double peak_flops) {
  if (peak_flops <= 0 || !(seconds > 0) || flops / seconds <= peak_flops) return "";
  std::ostringstream text;
  text << std::fixed << std::setprecision(1) << "measurement fault: " << flops / seconds * 1e-9
       << " GFLOP/s is above the peak of " << peak_flops * 1e-9
       << " GFLOP/s (the threads' FMA units at the measured clock)";
  return text.str();
}

std::string check_peak(double flops, double seconds, PeakBound& bound) {
  if (peak_fault(flops, seconds, bound.flops()).empty()) return "";
  bound.clock_hz = std::max(bound.clock_hz, measure_core_clock_hz());
  return peak_fault(flops, seconds, bound.flops());
}

}  // namespace tessel::autotune

// The machine's floating-point peak, the bound every measured speed is checked against.
//
// A kernel cannot do more floating-point operations per second than the cores' vector FMA
// units can: threads x Target::peak_flops_per_cycle x the core clock. A measurement above
// that is a fault of the measurement (a clock that changed between a candidate and the run
// it is measured against, a run that skipped its work), not a fast schedule, and the tuner
// refuses it as a failed trial that names the bound. The clock is measured, not read: a
// chain of dependent register additions retires one per cycle on every x86-64 and AArch64
// core, so its rate is the clock the core ran at. A core's clock moves with its load and
// temperature (3.6 to 4.1 GHz within seconds on a Sapphire Rapids VM), so a run above the
// bound has the clock measured again, and only a run above the bound at the highest clock
// seen is a fault.
#pragma once

#include <string>

#include "target/target.h"

namespace tessel::autotune {

/// The core clock in Hz, measured over a few milliseconds (the fastest of several rounds);
/// 0 on architectures without a known single-cycle dependent instruction.
double measure_core_clock_hz();

/// The bound: float32 operations per cycle of all the threads' cores, at the highest clock
/// seen; flops_per_cycle 0: unchecked.
struct PeakBound {
  double flops_per_cycle = 0;
  double clock_hz = 0;
  double flops() const { return flops_per_cycle * clock_hz; }
};

/// The bound of `threads` cores of `target` at the clock measured now (flops_per_cycle 0
/// where the clock cannot be measured).
PeakBound measure_peak(const target::Target& target, int threads);

/// "measurement fault: X GFLOP/s is above the peak of Y GFLOP/s (...)" when `flops` done in
/// `seconds` exceed `peak_flops` (0: unchecked), else "".
std::string peak_fault(double flops, double seconds, double peak_flops);

/// peak_fault against `bound`; a run above it first has the clock measured again and the
/// bound's clock raised to it when higher, so that only a run above the bound at the
/// highest clock seen is a fault.
std::string check_peak(double flops, double seconds, PeakBound& bound);

}  // namespace tessel::autotune

// The machine's floating-point peak, the bound every measured speed is checked against.
//
// A kernel cannot do more floating-point operations per second than the cores' vector FMA
// units can: threads x Target::peak_flops_per_cycle x the core clock. A measurement above
// that is a fault of the measurement (a clock that changed between a candidate and the run
// it is measured against, a run that skipped its work), not a fast schedule, and the tuner
// refuses it as a failed trial that names the bound. The clock is measured, not read: a
// chain of dependent register additions retires one per cycle on every x86-64 and AArch64
// core, so its rate is the clock the core ran at (its highest, as turbo allows, which keeps
// the bound an upper bound).
#pragma once

#include <string>

#include "target/target.h"

namespace tessel::autotune {

/// The core clock in Hz, measured over a few milliseconds (the fastest of several rounds);
/// 0 on architectures without a known single-cycle dependent instruction.
double measure_core_clock_hz();

/// The bound: floating-point operations per second of `threads` cores of `target` at
/// `clock_hz` on float32 elements.
double peak_flops(const target::Target& target, int threads, double clock_hz);

/// "measurement fault: X GFLOP/s is above the peak of Y GFLOP/s (...)" when `flops` done in
/// `seconds` exceed `peak_flops` (0: unchecked), else "".
std::string peak_fault(double flops, double seconds, double peak_flops);

}  // namespace tessel::autotune

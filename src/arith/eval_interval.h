// Symbolic interval evaluation (internal to tessel::arith; public entry:
// Analyzer::eval_interval).
#pragma once

#include "arith/bindings.h"

namespace tessel::arith {

/// The interval covered by `e` when the variables of `dom` range over their intervals.
/// Ends are simplified under `bindings`.
IntervalSet eval_interval_of(const Expr& e, const VarDomain& dom, Bindings& bindings);

}  // namespace tessel::arith

// Constant bounds of integer expressions by interval arithmetic over the bound variables.
// Internal to tessel::arith (the public entry is Analyzer::const_bound).
#pragma once

#include "arith/bindings.h"

namespace tessel::arith {

/// Bounds of every value `e` can take given the facts in `bindings` (which are restored
/// before returning; Let expressions bind their variable for the body meanwhile).
/// Non-integer expressions get everything(), bool ones [0, 1].
ConstBound const_bound_of(const Expr& e, Bindings& bindings);

}  // namespace tessel::arith

// Deep equality of expressions where variables compare by identity: the simplifier's
// notion of "the same term" (ir::structural_equal instead matches variables up to renaming).
#pragma once

#include "ir/expr.h"

namespace tessel::arith {

/// Same tree, same types and constants, and the very same variables and buffers.
bool deep_equal(const ir::Expr& a, const ir::Expr& b);

}  // namespace tessel::arith

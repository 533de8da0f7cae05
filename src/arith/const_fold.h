// Constant folding of operations on immediates (scalars and broadcasts of scalars), with
// the semantics of ir/expr.h: floor Div/Mod on integers, results wrapped to the type's
// width, IEEE floats. Division by zero is never folded.
#pragma once

#include "ir/expr.h"

namespace tessel::arith {

/// `kind`(a, b) as an immediate when both are immediates and folding is defined, else null.
ir::Expr fold_binary(ir::ExprKind kind, const ir::Expr& a, const ir::Expr& b);
/// !a when a is an immediate, else null.
ir::Expr fold_not(const ir::Expr& a);
/// cast(dtype, a) when a is an immediate, else null.
ir::Expr fold_cast(ir::DataType dtype, const ir::Expr& a);
/// An integer immediate of `dtype` holding `value` wrapped to the type's width
/// (vector types get a broadcast).
ir::Expr make_wrapped_int(ir::DataType dtype, int64_t value);
/// Whether e is an integer/bool or float immediate (or a broadcast of one).
bool is_immediate(const ir::Expr& e);

}  // namespace tessel::arith

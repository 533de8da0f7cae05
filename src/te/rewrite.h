// Rewriting the tensor loads of compute bodies (cache stages, inlining, lowering).
#pragma once

#include <functional>
#include <vector>

#include "te/operation.h"

namespace tessel::te {

/// Given a load of `tensor` at `indices` (already rewritten), returns its replacement, or
/// an undefined Expr to keep the load.
using LoadRewrite = std::function<Expr(const Tensor& tensor, const std::vector<Expr>& indices)>;

/// `e` with every load of a tensor replaced as `rewrite` says (innermost loads first).
Expr rewrite_loads(const Expr& e, const LoadRewrite& rewrite);

/// A copy of compute `op` with bodies rewritten by `rewrite`; `op` itself when unchanged.
Operation rewrite_op_loads(const Operation& op, const LoadRewrite& rewrite);

}  // namespace tessel::te

// Linear forms of integer index expressions: sum of coefficient * atom + constant.
//
// An atom is any subexpression that is not an Add, Sub, or a Mul by a constant (a
// variable, a Div, a Mod, a Min, a Load, a product of two non-constants...). Atoms are
// identified by deep_equal and kept in order of first appearance, so that turning a form
// back into an expression is deterministic and keeps the author's term order.
#pragma once

#include <optional>
#include <vector>

#include "ir/expr.h"

namespace tessel::arith {

struct LinearTerm {
  ir::Expr atom;
  int64_t coef;
};

/// sum(terms[i].coef * terms[i].atom) + constant, over one scalar integer type.
struct LinearForm {
  ir::DataType dtype = ir::DataType::Index();
  std::vector<LinearTerm> terms;  ///< Distinct atoms, nonzero coefficients.
  int64_t constant = 0;

  /// Adds coef * atom (merging with an equal atom); false on int64 overflow.
  bool add_term(const ir::Expr& atom, int64_t coef);
  /// Adds scale * other; false on overflow.
  bool add(const LinearForm& other, int64_t scale = 1);
  /// Multiplies everything by factor; false on overflow.
  bool scale(int64_t factor);
  /// gcd of the coefficients (0 when there are none).
  int64_t coef_gcd() const;
};

/// The linear form of a scalar integer expression; nullopt on overflow of coefficients.
std::optional<LinearForm> to_linear(const ir::Expr& e);
/// The linear form of a - b.
std::optional<LinearForm> linear_difference(const ir::Expr& a, const ir::Expr& b);
/// Builds the expression: positive terms in order, then negative ones subtracted, then the
/// constant: `x*4 + y - z*2 + 3`; `3 - x` when no term is positive.
ir::Expr from_linear(const LinearForm& form);

}  // namespace tessel::arith

// Deep equality with variables by identity: ir::structural_equal in its identity mode.
#include "arith/expr_equal.h"

#include "ir/structural.h"

namespace tessel::arith {

bool deep_equal(const ir::Expr& a, const ir::Expr& b) {
  return ir::structural_equal(a, b, ir::VarMatch::Identity);
}

}  // namespace tessel::arith

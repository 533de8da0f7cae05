// simplify: arithmetic simplification of every expression of a loop nest, with the facts
// the loops provide.
//
// Assumes: well-formed loop IR (loop variables are not redeclared inside their own loop).
// Guarantees: the result computes exactly what the input did, with
//  - every expression simplified by arith::Analyzer, knowing each enclosing For variable's
//    range [min, min + extent) and each enclosing LetStmt variable's bounds;
//  - LetStmts whose value is a constant or a variable substituted away;
//  - IfThenElse with a provably true (false) condition replaced by its then (else) branch;
//  - For loops with an extent that is provably <= 0 removed;
//  - For loops of extent 1 replaced by their body with the variable set to `min` (loops
//    bound to a GPU thread axis are kept: they define the launch shape);
//  - loops, lets, allocations and ifs whose body is left empty removed.
// A removed statement leaves an empty Seq, which disappears inside any enclosing Seq.
#pragma once

#include "ir/stmt.h"

namespace tessel::tir {

/// Simplifies a statement; see the file comment.
ir::Stmt simplify(const ir::Stmt& s);
/// Simplifies the body of a function.
ir::PrimFunc simplify(const ir::PrimFunc& f);

}  // namespace tessel::tir

// loop_partition: splits a loop around the point where a guard inside it turns from true
// to false, so that the main part runs without the guard. A guard is an `if`, or a select
// on loop indices (a convolution reading its input in place selects zero at the borders:
// the interior then loads unguarded).
//
// Assumes: well-formed loop IR.
// Guarantees: the result computes exactly what the input did. For a For loop over v in
// [m, m + n) (not bound to a GPU thread axis) whose body holds an IfThenElse, or a Select
// outside Let expressions when the loop is not vectorized, with a condition conjunct `a < b` / `a
// <= b` (integers; after let values are substituted) whose bound over the loops between the For and
// the `if` is linear in v, say c*v + r < 0:
//  - the loop splits at s = min(max(T, m), m + n) where T is the first (c > 0) or last
//    (c < 0) value of v for which the conjunct holds for all values of those inner loops;
//  - the part where the conjunct provably holds keeps the loop variable and drops the
//    conjunct (the `if` goes when it was the whole condition, its else branch with it; a
//    select gives way to its true value);
//  - the other part keeps the guard, gets a fresh loop variable, and is not partitioned
//    again at its own level (its inner loops are);
//  - both parts are simplified (tir::simplify), which removes guards that are then
//    provably false and loops of extent 0 or 1. A guard that holds over the whole loop is
//    just removed.
// Loops are processed outermost first, so a guard on an outer loop variable with inner
// loops in between partitions the outer loop: with i_outer in [0, 32), i_inner in [0, 32),
// `if (i_outer*32 + i_inner < 1000)` gives a guard-free main nest over i_outer in [0, 31)
// and a tail for i_outer = 31 whose inner loop is partitioned at i_inner = 8.
// Guards that are not linear in the loop variable (i % 4 < 2, min/max of it, a product
// with another variable) leave the loop alone.
//
// Versioning (loop_versioning.h) handles the guards no loop splits at. Before the body of
// each loop that was not partitioned (and the function body) is processed, the guards inside
// it that hold for all iterations of the loops between it and them under some condition H on
// the enclosing loops are versioned there: `if (H) { region without them } else { region }`,
// the region being the smallest part of the body holding those guards. Bodies are visited
// outermost first, so a version lands as far out as H is not provably false: after a fuse,
// `parallel (f, ...) { allocate { unrolled (i, 0, 6) { if (f % 171 * 6 + i < 1024) ... }
// ... } }` becomes `parallel (f, ...) { allocate { if (f % 171 < 170) { the whole tile
// unguarded, extents constant } else { the tile guarded, then partitioned } } }`. A guard
// whose H provably holds is just dropped, and none with a provably false H is versioned: no
// code is duplicated for a condition decided at compile time. See loop_versioning.h for the
// limits on code growth.
#pragma once

#include "ir/stmt.h"

namespace tessel::tir {

/// Partitions (and versions) loops around their guards; see the file comment.
ir::Stmt loop_partition(const ir::Stmt& s);
ir::PrimFunc loop_partition(const ir::PrimFunc& f);

}  // namespace tessel::tir

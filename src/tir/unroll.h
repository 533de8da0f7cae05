// unroll_loops: replicates the body of every For of kind Unrolled.
//
// Assumes: nothing beyond well-formed loop IR.
// Guarantees: a For of kind Unrolled with constant extent n (and n * body size within
// UnrollOptions::max_nodes) becomes the Seq of n copies of its body, copy k with the loop
// variable replaced by `min + k`; the copies run in the loop's order, so the result computes
// exactly what the loop did. Variables declared inside the body (lets, inner loops) are
// shared by the copies: each copy's declarations are scoped to that copy, which the IR allows.
// An extent of 0 leaves an empty Evaluate(0). Inner loops are unrolled first.
// Not unrolled, kept as a Serial loop instead (correctness first, never an error): a
// non-constant extent (a schedule may unroll a loop whose extent depends on a symbolic
// shape) and a loop whose unrolled size would exceed max_nodes.
#pragma once

#include <cstdint>

#include "ir/stmt.h"

namespace tessel::tir {

struct UnrollOptions {
  /// Keep the loop (as Serial) when extent * (IR nodes in the body) exceeds this.
  int64_t max_nodes = 1 << 16;
};

/// Unrolls every Unrolled loop of `f`; see the file comment.
ir::PrimFunc unroll_loops(const ir::PrimFunc& f, const UnrollOptions& options = {});

}  // namespace tessel::tir

// vectorize_loops: turns For loops of kind Vectorized into vector code.
//
// Assumes: the Vectorized annotation says the iterations may run in any order, as the
// schedule only allows it on data-parallel axes. Whatever the annotation, the pass checks the
// memory accesses it can see (below) and falls back to a serial loop when they could make
// lanes interfere.
// Guarantees: a Vectorized loop with constant extent L (2 <= L <= kMaxLanes) becomes its
// body with the loop variable replaced by ramp(min, 1, L); every expression that depends on
// it becomes an L-lane expression (loop-invariant operands are broadcast; ramp +/- invariant,
// ramp * invariant and ramp +/- ramp stay ramps; lets that depend on it become vector lets
// with fresh variables); loads and stores take vector indices. Inner loops and conditionals
// that do not depend on the variable stay as they are, with their bodies vectorized. An
// if/else whose condition depends on the variable becomes one store of a select when both
// branches store to the same element and their values cannot fault (no load, no integer
// division, no float-to-int cast). Extent 1 substitutes `min`; extent 0 keeps the empty loop.
// Kept as a Serial loop (its inner loops still processed), never an error, when:
//  - the extent is not constant or exceeds kMaxLanes, or the body already holds vectors
//    (an inner loop was vectorized first);
//  - an inner loop's bounds or an if's condition (other than the select case) depend on it;
//  - the body allocates, or holds a Reduce, Ramp or Broadcast that depends on it;
//  - a store's index does not depend on it (e.g. a reduction into one location);
//  - lanes could interfere: a buffer stored in the body is accessed at more than one index
//    expression; or it is accessed more than once, or its index moves with an inner loop or
//    let, and no dimension of the index is ramp(base, s) with a constant s != 0 whose base
//    varies by less than |s| over the inner loops (then distinct lanes never meet). A lone
//    store at a fixed index may repeat lanes: the last lane wins, as in the loop.
#pragma once

#include "ir/stmt.h"

namespace tessel::tir {

/// The widest vector vectorize_loops makes; wider Vectorized loops stay serial.
inline constexpr int kMaxLanes = 1024;

/// Vectorizes every Vectorized loop of `f`; see the file comment.
ir::PrimFunc vectorize_loops(const ir::PrimFunc& f);

}  // namespace tessel::tir

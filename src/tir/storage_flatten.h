// storage_flatten: turns every multi-dimensional buffer into a one-dimensional one.
//
// Assumes: loop IR from lowering, where Load/Store carry one index per buffer dimension and
// intermediates are made by Allocate; buffers are row-major (last index fastest).
// Guarantees: every Buffer in the result (parameters, allocations, loads, stores) has one
// dimension whose extent is the product of the old extents, and keeps its data variable
// (ir::Buffer::with_shape), so memory, names and the function's calling convention are
// unchanged; an access at (i0, .., in-1) becomes ((i0 * s1 + i1) * s2 + ..) + in-1. A 0-d
// buffer becomes a 1-element buffer accessed at 0. Buffers that already have one dimension
// are left as they are. No simplification is done here (the simplifier runs next).
#pragma once

#include "ir/stmt.h"

namespace tessel::tir {

/// Flattens every buffer of `f` to one dimension; see the file comment.
ir::PrimFunc storage_flatten(const ir::PrimFunc& f);

}  // namespace tessel::tir

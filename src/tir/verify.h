// verify_func: checks the well-formedness invariants every pass must preserve.
//
// Checked (each violation is an InternalError that prints the offending IR):
//  - every variable is defined before use: by an enclosing For, Let or LetStmt, or as a
//    parameter's data variable or a variable in a parameter's shape (a symbolic dimension);
//  - every Load/Store/Allocate shape refers only to defined variables;
//  - every Load/Store buffer is a parameter or allocated by an enclosing Allocate (matched
//    by data variable, so flattened views count), with as many indices as the declaring
//    buffer has dimensions, and the declaring buffer's element type;
//  - every stored value has the buffer's element type with the index's lanes;
//  - no Reduce remains (it never reaches loop IR).
// Used between passes by the pipeline in verify mode, and by tests.
#pragma once

#include "ir/stmt.h"

namespace tessel::tir {

/// Throws InternalError naming the first violation found in `f`; see the file comment.
void verify_func(const ir::PrimFunc& f);

}  // namespace tessel::tir

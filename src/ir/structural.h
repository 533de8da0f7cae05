// Structural equality and hashing of loop IR, up to renaming of variables and buffers.
//
// Two trees are equal when they have the same shape, types and constants, and their
// variables (and buffers) correspond one to one. Hashing is consistent with that
// equality: variables hash by order of first appearance. Used for task deduplication,
// caching and tests.
#pragma once

#include <cstddef>

#include "ir/stmt.h"

namespace tessel::ir {

bool structural_equal(const Expr& a, const Expr& b);
bool structural_equal(const Stmt& a, const Stmt& b);
bool structural_equal(const PrimFunc& a, const PrimFunc& b);
size_t structural_hash(const Expr& e);
size_t structural_hash(const Stmt& s);
size_t structural_hash(const PrimFunc& f);

}  // namespace tessel::ir

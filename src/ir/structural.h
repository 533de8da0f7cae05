// Structural equality and hashing of loop IR, up to renaming of variables and buffers.
//
// Two trees are equal when they have the same shape, types and constants, and their
// variables (and buffers) correspond one to one (or, with VarMatch::Identity, are the same). Hashing is consistent with that
// equality: variables hash by order of first appearance. Used for task deduplication,
// caching and tests.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ir/stmt.h"

namespace tessel::ir {

/// How variables and buffers of the two sides correspond.
enum class VarMatch : uint8_t {
  Rename,    ///< one to one, up to renaming (alpha-equivalence)
  Identity,  ///< the very same variables and buffer data (the simplifier's "same term")
};

bool structural_equal(const Expr& a, const Expr& b, VarMatch match = VarMatch::Rename);
bool structural_equal(const Stmt& a, const Stmt& b, VarMatch match = VarMatch::Rename);
bool structural_equal(const PrimFunc& a, const PrimFunc& b);
size_t structural_hash(const Expr& e);
size_t structural_hash(const Stmt& s);
size_t structural_hash(const PrimFunc& f);

}  // namespace tessel::ir

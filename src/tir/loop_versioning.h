// loop_versioning: the step of loop_partition for guards that no loop can be split at
// (their bound is not linear in a loop variable, e.g. `f % 171 * 6 + i < 1024` after a
// fuse): a region is duplicated into a guard-free fast path and the guarded original,
// selected by one condition on the enclosing loops.
//
// Assumes: well-formed loop IR; `analyzer` knows the ranges of the loops enclosing `s`.
// Guarantees: the result computes exactly what `s` did. Each conjunct `a < b`, `a <= b`,
// `a > b` or `a >= b` (integers, after let values are substituted; is_guard_arithmetic) of
// a guard (an
// IfThenElse, or a Select outside any Let expression: a convolution's padded read in place)
// that sits inside at least one loop of `s` gets a condition H: "the conjunct holds for
// every iteration of the loops of `s` around it". H is `u < 0` where u bounds the conjunct's
// a - b (or b - a, minus 1 when not strict) from above: its upper end over each of those
// loops in turn, innermost first (Analyzer::eval_interval). H must use only variables in
// scope at `s` and read no memory (the region could write it), else the conjunct is left
// alone, as is any conjunct of a guard node that occurs more than once in `s`. Then:
//  - a conjunct with a provably true H is dropped (no code is duplicated);
//  - one with a provably false H, or whose H is in `done` (a family an enclosing version
//    already selects on), is left alone;
//  - the others are versioned together: their distinct H (the families) are joined with
//    `&&` in order of appearance, skipping a family that would make the join provably
//    false, and the smallest region of `s` holding those guards (found through Allocate,
//    LetStmt and a run of Seq elements; never inside a loop) becomes
//    `if (H1 && H2 ...) { region without those conjuncts } else { region }`.
// Code growth is bounded: a region of more than kMaxVersionedStmts statements is not
// versioned (only provably true conjuncts are dropped then); loop_partition versions inside
// at most kMaxVersionDepth enclosing versions, and never inside a vectorized loop (a branch
// there would depend on the lanes).
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "arith/analyzer.h"
#include "ir/stmt.h"

namespace tessel::tir {

/// Largest region (in statement nodes) that versioning duplicates.
inline constexpr int64_t kMaxVersionedStmts = 256;
/// A region is versioned only inside fewer versions than this: every statement ends up in
/// at most 2^kMaxVersionDepth versions.
inline constexpr int kMaxVersionDepth = 2;

/// The conjuncts of a condition: `a && (b && c)` gives a, b, c.
std::vector<ir::Expr> conjuncts_of(const ir::Expr& cond);

/// Whether `d`, the difference a guard compares with zero, is arithmetic the analyzer reasons
/// about exactly: a signed scalar integer of 32 bits or more (others wrap around) that reads
/// no memory (a select on loaded values is data, not a guard).
bool is_guard_arithmetic(const ir::Expr& d);

/// Conjuncts to remove, by guard node (an IfThenElseNode or a SelectNode): indices into
/// conjuncts_of(its condition).
using ConjunctDrops = std::unordered_map<const ir::Object*, std::vector<size_t>>;

/// `s` without the listed conjuncts; an `if` (a select) left without any is replaced by its
/// then branch (its true value).
ir::Stmt drop_conjuncts(const ir::Stmt& s, const ConjunctDrops& drops);

/// What version_guards made of a statement.
struct Versioning {
  ir::Stmt stmt;  ///< The rewritten statement.
  /// The `if (H1 && H2 ...) fast else slow` node inside `stmt`; null when conjuncts that
  /// provably hold were only dropped.
  const ir::IfThenElseNode* version = nullptr;
  /// H1, H2, ...: the guard families `version` selects on.
  std::vector<ir::Expr> families;
};

/// Versions `s` on its guards (see the file comment); nullopt when nothing changes.
std::optional<Versioning> version_guards(const ir::Stmt& s, arith::Analyzer& analyzer,
                                         const std::vector<ir::Expr>& done);

}  // namespace tessel::tir

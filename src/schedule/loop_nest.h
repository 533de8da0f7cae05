// The loop nest of a stage made concrete: one variable and extent per leaf loop, the value
// of every root loop in terms of the leaves, and the guards of non-divisible splits.
//
// Split by factor f of a loop of extent n: outer extent ceil(n/f), inner extent f,
// parent = outer*f + inner. Split into p parts: outer extent p, inner extent ceil(n/p).
// Fuse: fused extent = outer extent * inner extent, outer = fused / inner extent,
// inner = fused % inner extent. A split whose factor does not provably divide its parent's
// extent gets the guard `parent < n` (no guard otherwise).
#pragma once

#include <string>
#include <vector>

#include "arith/analyzer.h"
#include "schedule/stage.h"

namespace tessel::schedule {

struct LoopNest {
  /// One fresh variable per leaf loop, in leaf order, named after the loop.
  std::vector<ir::Var> leaf_vars;
  std::vector<ir::Expr> leaf_extents;
  /// Per root loop: its value minus its min, in terms of the leaf variables.
  std::vector<ir::Expr> root_offsets;
  /// Conditions that must hold for an iteration to be real (non-divisible splits).
  std::vector<ir::Expr> guards;
};

/// Derives the nest of `stage` whose roots have extents `root_extents` (in root order).
/// The leaf variables are bound in `analyzer` to [0, extent).
LoopNest derive_loop_nest(const Stage& stage, const std::vector<ir::Expr>& root_extents,
                          arith::Analyzer& analyzer);

/// The extent of every loop of `stage` named in `loops`, given the root extents.
std::vector<ir::Expr> loop_extents(const Stage& stage, const std::vector<ir::Expr>& root_extents,
                                   const std::vector<std::string>& loops,
                                   arith::Analyzer& analyzer);

/// Whether `factor` provably divides `extent`.
bool divides(int64_t factor, const ir::Expr& extent, arith::Analyzer& analyzer);

}  // namespace tessel::schedule

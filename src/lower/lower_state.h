// Internal to lowering: what is known about each stage that gets a loop nest, shared by
// bound inference, statement emission and the driver in lower.cpp.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "arith/analyzer.h"
#include "schedule/loop_nest.h"
#include "schedule/schedule.h"

namespace tessel::lower {

/// One stage that is lowered to a loop nest (not a placeholder, not inlined).
struct StageInfo {
  const schedule::Stage* stage = nullptr;
  /// Bodies with inlined stages substituted; loads still read logical tensor buffers.
  std::vector<ir::Expr> bodies;
  /// Stages whose bodies read this one, in topological order.
  std::vector<StageInfo*> consumers;
  /// For compute_at: the stage whose loop holds this one, and that loop's leaf index.
  StageInfo* attach_target = nullptr;
  int attach_leaf = -1;
  /// Loop variables enclosing this stage's nest, outermost first.
  std::vector<ir::Var> outer_vars;
  /// Per root loop: the range computed (the region needed, for compute_at stages).
  std::vector<ir::Expr> root_min, root_extent;
  schedule::LoopNest nest;
  /// Per root loop: its value, root_min + offset from the leaves.
  std::vector<ir::Expr> root_value;
  /// Per output: its storage and whether lowering allocates it (false for parameters).
  std::vector<ir::Buffer> buffers;
  std::vector<bool> allocated;
  /// Per dimension: the index of the first stored element (region min, or 0).
  std::vector<ir::Expr> storage_offset;
};

/// Everything lowering knows, built up by the steps of lower().
struct LowerState {
  explicit LowerState(const schedule::Schedule& s) : schedule(s) {}
  const schedule::Schedule& schedule;
  /// Producers before consumers.
  std::vector<std::unique_ptr<StageInfo>> infos;
  std::unordered_map<const schedule::Stage*, StageInfo*> info_of;
  /// Parameter buffers of placeholder tensors, by (stage, output index).
  std::unordered_map<const schedule::Stage*, std::vector<ir::Buffer>> placeholder_params;
  /// Extent of every loop variable made so far.
  std::unordered_map<const ir::VarNode*, ir::Expr> loop_extent;
  arith::Analyzer analyzer;
};

}  // namespace tessel::lower

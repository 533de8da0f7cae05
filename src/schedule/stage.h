// A Stage: how one operation of a tensor-expression DAG is computed.
//
// Loops are named by stable strings. The roots are the operation's axes then its reduction
// axes (their iteration-variable names); split makes "<loop>.outer" / "<loop>.inner", fuse
// makes "<outer>.<inner>.fused". Relations record how loops derive from one another, in
// the order they were applied; the leaves, in order, are the loop nest that lowering
// emits. A stage is computed at the root of the function, inlined into its consumers, or
// attached at a loop of a consumer stage (compute_at).
#pragma once

#include <string>
#include <vector>

#include "ir/stmt.h"
#include "te/operation.h"

namespace tessel::schedule {

/// A loop of a stage, with its annotation.
struct Loop {
  std::string name;
  ir::IterKind kind = ir::IterKind::DataPar;
  /// Serial unless annotated parallel / vectorized / unrolled.
  ir::ForKind for_kind = ir::ForKind::Serial;
};

/// How loops derive from others.
struct LoopRelation {
  enum class Kind : uint8_t { Split, Fuse };
  Kind kind = Kind::Split;
  /// Split: parent -> (outer, inner). Fuse: (outer, inner) -> fused.
  std::string parent, outer, inner, fused;
  /// Split: the inner extent, or with `by_nparts` the outer extent.
  int64_t factor = 0;
  bool by_nparts = false;
};

enum class AttachKind : uint8_t { Root, Inline, At };

/// A prefetch (Schedule::prefetch): in each iteration of leaf `loop`, what the next
/// iteration reads of tensor `tensor`, spread over the iterations inside.
struct Prefetch {
  std::string loop;
  std::string tensor;
};

/// How one operation is computed.
struct Stage {
  std::string name;
  /// The current operation: cache primitives and rfactor rewrite bodies into new ops.
  te::Operation op;
  /// Whether an output tensor of the schedule comes from this stage.
  bool is_output = false;
  /// Where its storage lives when it is an intermediate.
  ir::MemoryScope scope = ir::MemoryScope::Global;
  /// Every loop ever created, roots first.
  std::vector<Loop> loops;
  std::vector<std::string> roots;
  std::vector<LoopRelation> relations;
  std::vector<std::string> leaves;
  AttachKind attach = AttachKind::Root;
  /// For AttachKind::At: the consumer stage and its leaf loop.
  std::string attach_stage, attach_loop;
  std::vector<Prefetch> prefetches;

  bool is_placeholder() const { return op->is_placeholder(); }
  const Loop* find_loop(const std::string& loop) const;
  Loop* find_loop(const std::string& loop);
  /// Position of `loop` among the leaves, or -1.
  int leaf_position(const std::string& loop) const;
  /// Whether loops were split, fused, reordered, annotated or given prefetches since the
  /// stage was made.
  bool is_transformed() const;
};

/// A fresh stage for `op` with its root loops as leaves.
Stage make_stage(const te::Operation& op);

/// The iteration variable of root loop `index` of a compute stage (axes, then reduce axes).
const ir::IterVar& root_iter_var(const Stage& stage, size_t index);

}  // namespace tessel::schedule

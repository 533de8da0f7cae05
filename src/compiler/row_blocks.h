// Kernels over blocks of rows: a fused group whose values carry a run-time extent along
// their leading axis only (passes/run_time_extents.h) is compiled for a block of rows and
// launched once per block the run's extent reaches, so that its work follows the extent the
// run finds rather than the largest one.
//
// The operators that carry such an extent compute each valid position from valid positions
// only; along the leading axis, and but for the reductions and softmaxes over it (which read
// padding that tessel.MaskPadding filled whole, mask_run_time_padding.h: groups masking or
// reading masked padding, and groups with outputs that do not carry the extent, stay whole),
// that makes every row of a block a function of the same rows
// of the group's padded inputs (and of its other inputs, whole): a kernel compiled for
// `rows` rows, its padded arguments offset by one block per launch, computes the group. The
// group is rebuilt over copies of its nodes whose run-time values are typed for one block
// (type inference must agree: a Reshape to a constant shape naming the largest extent
// keeps the group whole), and the launch count is the runtime's (PlanStep::block_rows).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "compiler/fusion.h"
#include "graph/graph.h"
#include "passes/run_time_extents.h"

namespace tessel::compiler {

/// Rows per block at most: enough for the products' register tiles and parallel loops.
inline constexpr int64_t kMaxBlockRows = 64;
/// Rows per block at least: fewer would cost more in launches than padding costs.
inline constexpr int64_t kMinBlockRows = 8;

/// A fused group rebuilt for one block of rows.
struct RowBlocks {
  int64_t rows = 0;
  FusedGroup group;
  /// The graph value each copied value stands for.
  std::map<const graph::Value*, const graph::Value*> original;
  std::vector<std::unique_ptr<graph::Node>> nodes;
  std::vector<std::unique_ptr<graph::Value>> values;
};

/// The rows per block for a largest leading extent of `largest`: its largest divisor in
/// [kMinBlockRows, kMaxBlockRows], or 0 when it has none or is no larger than that.
int64_t block_rows_for(int64_t largest);

/// `group` rebuilt for blocks of rows, or nothing when no value of it carries a run-time
/// extent (`run_time`), one carries it along another axis than the leading one, the
/// largest extent has no block size, or the block's types do not infer.
std::optional<RowBlocks> row_blocks(const FusedGroup& group,
                                    const passes::RunTimeExtents& run_time);

}  // namespace tessel::compiler

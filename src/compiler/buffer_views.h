// Values that live inside another value's buffer, so that no kernel copies them:
// concatenations whose producers write straight into the concatenated buffer, and slices
// and splits whose outputs are windows of their input.
//
// A Concat whose inputs are whole, contiguous slices of its output (every dimension before
// its axis is 1, as along the channels at batch 1, blocked or not) runs no kernel when each
// input can be computed straight into its slice of the output's buffer. The concatenations
// are visited from the last to the first. A concatenation whose output lies nowhere yet
// makes it a buffer and places its inputs in it side by side; one whose output already lies
// in a buffer (it is an input of a later concatenation) places its inputs inside that
// slice; one whose inputs all lie side by side in one buffer already (DenseNet's growing
// concatenations of the same features) becomes the span of them. An input that lies
// elsewhere already, an input that is not computed by a kernel (a graph input, a constant),
// one read twice, or a slice not aligned for the kernels keeps the copy.
//
// Then, from the first to the last, a Slice or Split alone in its group whose outputs are
// contiguous runs of its input (ops::OpDef::windows: the cut axis is the first of extent
// above 1, as a channel split at batch 1 is) runs no kernel: each output lies inside the
// input's buffer (or inside the buffer the input lies in). The input must be computed in
// this graph (not a graph input or constant); an output placed already, a graph output, a
// window of the whole input, or one not aligned for the kernels keeps the copy. A buffer
// lives as long as any value inside it is read, so nothing overwrites a window's elements
// while it is live. A node touching a value whose extent the run finds keeps its kernel.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "compiler/fusion.h"
#include "graph/graph.h"

namespace tessel::compiler {

struct BufferSlice {
  const graph::Value* buffer = nullptr;  ///< the value whose buffer holds the slice
  int64_t byte_offset = 0;
  bool operator==(const BufferSlice&) const = default;
};

struct BufferViews {
  /// Values that live inside another value's buffer (which lives in no other's).
  std::map<const graph::Value*, BufferSlice> slices;
  /// The groups (indices into the fused groups) of the concatenations that need no kernel.
  std::set<size_t> concat_groups;
  /// The groups of the slices and splits whose outputs are windows of their input.
  std::set<size_t> window_groups;
};

/// The concatenations, slices and splits of `groups` (each alone in its group) that need no
/// copy, and where their values live; every slice starts at a multiple of `alignment`
/// bytes. Nodes touching a value of `run_time` (whose extent the run finds) are left out.
BufferViews plan_buffer_views(const graph::Graph& graph, const std::vector<FusedGroup>& groups,
                              int64_t alignment, const std::set<const graph::Value*>& run_time);

}  // namespace tessel::compiler

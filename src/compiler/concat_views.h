// Concatenations without copies: a Concat whose inputs are whole, contiguous slices of its
// output (every dimension before its axis is 1, as along the channels at batch 1, blocked
// or not) runs no kernel when each input can be computed straight into its slice of the
// output's buffer.
//
// The concatenations are visited from the last to the first. A concatenation whose output
// lies nowhere yet makes it a buffer and places its inputs in it side by side; one whose
// output already lies in a buffer (it is an input of a later concatenation) places its
// inputs inside that slice; one whose inputs all lie side by side in one buffer already
// (DenseNet's growing concatenations of the same features) becomes the span of them. An
// input that lies elsewhere already, an input that is not computed by a kernel (a graph
// input, a constant), one read twice, or a slice not aligned for the kernels keeps the copy.
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

struct ConcatViews {
  /// Values that live inside another value's buffer (which lives in no other's).
  std::map<const graph::Value*, BufferSlice> slices;
  /// The groups (indices into the fused groups) of the concatenations that need no kernel.
  std::set<size_t> in_place_groups;
};

/// The concatenations of `groups` (each alone in its group) that need no copy, and where
/// their inputs live; every slice starts at a multiple of `alignment` bytes.
ConcatViews plan_concat_views(const std::vector<FusedGroup>& groups, int64_t alignment);

}  // namespace tessel::compiler

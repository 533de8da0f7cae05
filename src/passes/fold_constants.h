// fold_constants: evaluates at compile time what does not depend on the graph inputs' data.
//
// A node whose inputs are all constants is run with tessel's own kernels
// (executor::compile_node + run_compiled) and its outputs become constants; a metadata
// operator (Shape, Size, ... whose OpDef has `fold`) becomes constants from its inputs'
// types alone. Walking in topological order, a folded value feeds the next node's folding,
// so the values operators need at compile time (Reshape's shape computed by
// Shape -> Gather -> Concat, ...) become constants here. An If whose condition becomes a
// constant is replaced by its taken branch (inline_branch.h).
//
// Assumes static graph input shapes. Guarantees: every node left has inferred output types
// (like infer_types); constants keep the names of the values they replace.
// Not folded: nodes whose outputs together exceed kMaxFoldGrowth times their inputs' elements
// and kMinLargeFold elements (a ConstantOfShape or Expand that would turn a few numbers into
// megabytes of constant data is cheaper to compute at run time).
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace tessel::passes {

/// Outputs of at most this many elements always fold.
inline constexpr int64_t kMinLargeFold = int64_t{1} << 20;
/// Larger outputs fold when they have at most this many times their inputs' elements.
inline constexpr int64_t kMaxFoldGrowth = 4;

/// A copy of `graph` with constant subexpressions and metadata operators folded.
/// CompileError naming the node that cannot be inferred or evaluated.
graph::Graph fold_constants(const graph::Graph& graph);

}  // namespace tessel::passes

// Operator fusion: partitions a typed graph into groups that each become one kernel.
//
// Groups grow forward by the operators' pattern kinds (TVM's rules): element-wise, broadcast
// and injective operators chain together; an element-wise epilogue of the anchor's output
// shape (bias, residual add, ReLU, Clip, GELU, ...) joins a convolution or matrix product
// (out-fusable); a reduction takes its element-wise inputs (prologue). Epilogues may be
// DAGs, not only chains: a value read several times (x * sigmoid(x), hard-swish, the GELU
// forms) stays inside when all its readers join. Values inside a group are read only
// inside the group, so a group exposes only its last node's outputs and can run as one
// kernel where that node was.
// Operators with their own schedule join only as a group's anchor; opaque and multi-output
// operators stay alone.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "ops/op_def.h"

namespace tessel::compiler {

/// Element-wise or broadcast: each output element reads its inputs at its own position
/// (up to broadcasting).
bool is_elementwise(ops::PatternKind kind);

struct FusedGroup {
  /// The group's nodes in graph order; the last one computes the group's outputs.
  std::vector<const graph::Node*> nodes;
  /// The out-fusable or reduction node the others fuse around; nullptr when none.
  const graph::Node* anchor = nullptr;

  const graph::Node& root() const { return *nodes.back(); }
  /// The fused operators, e.g. "Conv+Add+Relu".
  std::string label() const;
  /// Whether the group is one node of an operator that the runtime runs as a step of its
  /// own because its output extents depend on input values (ops::OpDef::data_dependent).
  bool data_dependent() const;
};

struct FusionOptions {
  /// Off: one group per node.
  bool enabled = true;
  /// A group closes at this many nodes: the cost of building a kernel grows faster than its
  /// size, and a long chain split into equal groups builds one kernel, shared.
  size_t max_group_nodes = 256;
};

/// Partitions the nodes of `graph` (every node, in graph order) into fused groups, returned
/// in an order that respects dependences.
std::vector<FusedGroup> fuse_operators(const graph::Graph& graph, const FusionOptions& options = {});

}  // namespace tessel::compiler

// An If whose condition is known at compile time becomes the nodes of the branch it takes:
// the other branch is never typed or compiled (it may not even be valid for these shapes, as
// when a model branches on a shape), and the taken one fuses with its neighbours. The same
// copy of a body into its enclosing graph serves SequenceMap (passes/sequences.h).
#pragma once

#include <vector>

#include "graph/graph.h"
#include "passes/graph_builder.h"

namespace tessel::passes {

/// When `node` is an If whose condition (`inputs[0]`, what stands for the node's inputs in
/// the graph `builder` builds) is a constant, adds the taken branch's nodes (typed, its
/// constants folded) to `builder`, defines the node's outputs as copies of the branch's, and
/// returns true; otherwise returns false and adds nothing.
bool inline_constant_branch(GraphBuilder& builder, const graph::Node& node,
                            const std::vector<const graph::Value*>& inputs);

/// Adds the nodes of `body` (typed for `inputs`, its constants folded) to `builder`, its
/// inputs taking `inputs` (values of the graph being built, one per body input); returns the
/// new values of the body's outputs.
std::vector<graph::Value*> inline_body(GraphBuilder& builder, const graph::Graph& body,
                                       const std::vector<graph::Value*>& inputs);

}  // namespace tessel::passes

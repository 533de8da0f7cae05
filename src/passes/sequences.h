// Sequences and optionals resolved at compile time.
//
// tessel compiles kernels for fixed shapes, and a sequence is a list of tensors: where the
// list's length and each element's type are known at compile time (the common case: a
// model builds a list from tensors, splits a tensor into one, maps a body over it), the
// list needs no run-time representation. A sequence becomes the values of its elements, an
// optional whether it holds a value and that value, and the sequence and optional operators
// become the element they select (SequenceAt), a constant (SequenceLength,
// OptionalHasElement), a Concat (ConcatFromSequence), a Split (SplitToSequence) or copies of
// a body (SequenceMap). Positions must be known at compile time. A sequence or optional
// graph input is given as its elements (flatten_structured_inputs), and a graph output
// becomes its elements' outputs, "y[0]", "y[1]", ...: the compiled model has tensors only.
//
// A Loop that carries a sequence (building a list trip by trip) is unrolled when its trip
// count and condition are known at compile time, and so is a Loop whose body needs a
// per-trip value as a constant (a Slice at the iteration number: executor::
// body_needs_trip_values). Not resolved (a clear error naming the
// node): a sequence whose length depends on run-time values (such a Loop with a run-time
// trip count or condition, an If on a run-time condition that returns one).
#pragma once

#include <functional>
#include <vector>

#include "graph/graph.h"
#include "passes/graph_builder.h"

namespace tessel::passes {

/// A sequence or optional graph input as one compilation takes it: whether it holds a value
/// (an optional may not; a sequence always does) and its elements' types.
struct InputStructure {
  bool present = true;
  std::vector<graph::TensorType> elements;
};

/// A copy of `graph` whose sequence and optional inputs are given as their elements: input
/// `x` becomes inputs element_name("x", k) of the types `structures[i]` gives, which a
/// SequenceConstruct (and an Optional) make into x again. `structures` has one entry per
/// graph input (those of tensor inputs are ignored). CompileError naming the input when a
/// structure does not fit its kind (an optional tensor with two elements, a sequence that
/// holds no value).
graph::Graph flatten_structured_inputs(const graph::Graph& graph,
                                       const std::vector<InputStructure>& structures);

/// When `node` is a sequence or optional operator, or reads a resolved sequence or optional,
/// resolves it in `builder` (its outputs defined, as structures or tensors) and returns
/// true; else returns false and adds nothing. `inputs` stand for the node's inputs in the
/// graph being built (builder.lookup). CompileError naming the node for what cannot be
/// resolved at compile time or is out of range.
/// A Loop that carries or reads a sequence is unrolled: each trip a copy of its body whose
/// nodes `fold` adds to `builder` (fold_constants' step); its trip count and condition must
/// be known at compile time.
using NodeFolder = std::function<void(const graph::Node&)>;
bool resolve_structured_node(GraphBuilder& builder, const graph::Node& node,
                             const std::vector<const graph::Value*>& inputs, const NodeFolder& fold);

}  // namespace tessel::passes

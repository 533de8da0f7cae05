// The graph passes' typing of control-flow bodies (If's branches, Loop's and Scan's body):
// a body specialised to the types (and known values) its node passes it, then its
// constants folded, gives its output types. fold_constants and infer_types hand it to the
// operators' type inference (ops::BodyTyper).
#pragma once

#include <vector>

#include "graph/graph.h"
#include "ops/op_context.h"

namespace tessel::passes {

/// `body` specialised to `input_types` (`input_values[i]`, where given, makes input i a
/// constant), with its constants folded and every value typed.
graph::Graph typed_body(const graph::Graph& body, const std::vector<graph::TensorType>& input_types,
                        const std::vector<const runtime::NDArray*>& input_values);

/// A BodyTyper giving the output types of typed_body.
const ops::BodyTyper& body_typer();

}  // namespace tessel::passes

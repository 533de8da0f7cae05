// Conversion of ONNX node attributes (AttributeProto) to graph::Attribute.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "graph/attribute.h"

namespace tessel::frontend {

/// The attribute `attr` of the node described by `node_label` ("node 'n' (Conv)"). The kind
/// comes from the `type` field, or, in old models that leave it unset, from the value field
/// that is set. Not for graph attributes (is_graph_attribute): the graph importer builds
/// control-flow bodies itself. Throws CompileError naming the
/// node and the attribute for sparse tensors, type protos, lists of tensors, references to
/// function attributes, string tensors and bad tensor data. Tensor values with external data
/// are resolved against `external_data_dir`.
/// Whether `attr` holds one graph (a control-flow body), by its type field or, when that is
/// unset, by its value.
bool is_graph_attribute(const onnx::AttributeProto& attr);

graph::Attribute attribute_from_onnx(const onnx::AttributeProto& attr,
                                     const std::string& node_label,
                                     const std::string& external_data_dir);

}  // namespace tessel::frontend

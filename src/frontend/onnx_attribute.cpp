// AttributeProto -> graph::Attribute.
#include "frontend/onnx_attribute.h"

#include <memory>

#include "frontend/onnx_tensor.h"
#include "frontend/onnx_types.h"
#include "support/error.h"

namespace tessel::frontend {

namespace {

using onnx::AttributeProto;

/// The kind of an attribute whose `type` field is unset, from the value field that is set;
/// UNDEFINED when none is.
AttributeProto::AttributeType infer_kind(const AttributeProto& attr) {
  if (attr.has_f()) return AttributeProto::FLOAT;
  if (attr.has_i()) return AttributeProto::INT;
  if (attr.has_s()) return AttributeProto::STRING;
  if (attr.has_t()) return AttributeProto::TENSOR;
  if (attr.has_g()) return AttributeProto::GRAPH;
  if (attr.has_sparse_tensor()) return AttributeProto::SPARSE_TENSOR;
  if (attr.has_tp()) return AttributeProto::TYPE_PROTO;
  if (attr.floats_size()) return AttributeProto::FLOATS;
  if (attr.ints_size()) return AttributeProto::INTS;
  if (attr.strings_size()) return AttributeProto::STRINGS;
  if (attr.tensors_size()) return AttributeProto::TENSORS;
  if (attr.graphs_size()) return AttributeProto::GRAPHS;
  if (attr.sparse_tensors_size()) return AttributeProto::SPARSE_TENSORS;
  if (attr.type_protos_size()) return AttributeProto::TYPE_PROTOS;
  return AttributeProto::UNDEFINED;
}

/// "sparse_tensor", "type_protos", ...: the lower-case ONNX name of a kind.
std::string kind_name(AttributeProto::AttributeType kind) {
  if (!AttributeProto::AttributeType_IsValid(kind)) return "code " + std::to_string(kind);
  return lower_case(AttributeProto::AttributeType_Name(kind));
}

}  // namespace

bool is_graph_attribute(const AttributeProto& attr) {
  AttributeProto::AttributeType kind = attr.type();
  if (kind == AttributeProto::UNDEFINED) kind = infer_kind(attr);
  return kind == AttributeProto::GRAPH;
}

graph::Attribute attribute_from_onnx(const AttributeProto& attr, const std::string& node_label,
                                     const std::string& external_data_dir) {
  const std::string what = node_label + " attribute '" + attr.name() + "'";
  if (!attr.ref_attr_name().empty())
    TESSEL_USER_ERROR(what, " refers to the function attribute '", attr.ref_attr_name(),
                      "': function bodies are not supported");
  AttributeProto::AttributeType kind = attr.type();
  if (kind == AttributeProto::UNDEFINED) kind = infer_kind(attr);
  switch (kind) {
    case AttributeProto::FLOAT:
      return graph::Attribute::of_float(attr.f());
    case AttributeProto::INT:
      return graph::Attribute::of_int(attr.i());
    case AttributeProto::STRING:
      return graph::Attribute::of_string(attr.s());
    case AttributeProto::TENSOR:
      return graph::Attribute::of_tensor(std::make_shared<const runtime::NDArray>(
          tensor_from_onnx(attr.t(), what, external_data_dir)));
    case AttributeProto::FLOATS:
      return graph::Attribute::of_floats({attr.floats().begin(), attr.floats().end()});
    case AttributeProto::INTS:
      return graph::Attribute::of_ints({attr.ints().begin(), attr.ints().end()});
    case AttributeProto::STRINGS:
      return graph::Attribute::of_strings({attr.strings().begin(), attr.strings().end()});
    case AttributeProto::GRAPH:
      TESSEL_INTERNAL_ERROR(what, " is a graph: the graph importer builds bodies itself");
    case AttributeProto::UNDEFINED:
      TESSEL_USER_ERROR(what, " has no type and no value");
    case AttributeProto::SPARSE_TENSOR:
    case AttributeProto::GRAPHS:
    case AttributeProto::SPARSE_TENSORS:
    case AttributeProto::TYPE_PROTO:
    case AttributeProto::TYPE_PROTOS:
    case AttributeProto::TENSORS:
      break;
  }
  TESSEL_USER_ERROR(what, " has kind ", kind_name(kind), ": not supported");
}

}  // namespace tessel::frontend

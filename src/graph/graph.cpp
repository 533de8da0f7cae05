// Graph construction: values, constants, nodes, and dtype conversions.
#include "graph/graph.h"

#include "support/error.h"

namespace tessel::graph {

const Attribute* Node::attribute(const std::string& attr_name) const {
  auto it = attributes.find(attr_name);
  return it == attributes.end() ? nullptr : &it->second;
}

bool Node::has_body() const {
  for (const auto& [attr_name, attr] : attributes)
    if (attr.kind == AttrKind::Graph) return true;
  return false;
}

const char* value_kind_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::Tensor:
      return "tensor";
    case ValueKind::Sequence:
      return "sequence";
    case ValueKind::OptionalTensor:
      return "optional tensor";
    case ValueKind::OptionalSequence:
      return "optional sequence";
  }
  return "?";
}

std::string Node::describe() const {
  std::string label = name.empty() ? "node producing '" +
                                         (outputs.empty() || !outputs[0] ? std::string("?")
                                                                         : outputs[0]->name) +
                                         "'"
                                   : "node '" + name + "'";
  return label + " (" + (domain.empty() ? "" : domain + ".") + op_type + ")";
}

bool Node::same_attributes(const Node& other) const {
  if (attributes.size() != other.attributes.size()) return false;
  for (const auto& [attr_name, attr] : attributes) {
    const Attribute* theirs = other.attribute(attr_name);
    if (!theirs || !same_attribute(attr, *theirs)) return false;
  }
  return true;
}

Value* Graph::add_value(const std::string& value_name, TensorType type) {
  if (value_name.empty()) TESSEL_USER_ERROR("graph '", name, "': a value has an empty name");
  if (by_name_.count(value_name))
    TESSEL_USER_ERROR("graph '", name, "': value '", value_name, "' is defined twice");
  auto value = std::make_unique<Value>();
  value->name = value_name;
  value->type = std::move(type);
  Value* raw = value.get();
  values_.push_back(std::move(value));
  by_name_[value_name] = raw;
  return raw;
}

Value* Graph::add_constant(const std::string& value_name,
                           std::shared_ptr<const runtime::NDArray> data) {
  TESSEL_ICHECK(data != nullptr, "constant '", value_name, "' without data");
  Value* value = add_value(value_name, TensorType::of(to_data_type(data->dtype()), data->shape()));
  value->constant = std::move(data);
  return value;
}

Node* Graph::add_node(Node node) {
  auto owned = std::make_unique<Node>(std::move(node));
  for (Value* out : owned->outputs) {
    if (!out) continue;
    if (out->producer || out->constant)
      TESSEL_USER_ERROR(owned->describe(), ": output '", out->name,
                        "' is already defined by another node or an initializer");
    for (Value* in : inputs_)
      if (in == out)
        TESSEL_USER_ERROR(owned->describe(), ": output '", out->name, "' is a graph input");
    out->producer = owned.get();
  }
  nodes_.push_back(std::move(owned));
  return nodes_.back().get();
}

Value* Graph::find_value(const std::string& value_name) const {
  auto it = by_name_.find(value_name);
  return it == by_name_.end() ? nullptr : it->second;
}

ir::DataType to_data_type(runtime::DType dtype) {
  return ir::DataType::make(static_cast<ir::TypeCode>(dtype.code), dtype.bits);
}

runtime::DType to_runtime_dtype(ir::DataType dtype) {
  TESSEL_ICHECK(dtype.is_scalar() && !dtype.is_handle(), "no runtime dtype for ",
                dtype.to_string());
  return runtime::DType{static_cast<runtime::DTypeCode>(dtype.code), dtype.bits};
}

}  // namespace tessel::graph

// inline_constant_branch: the taken branch of an If copied into the enclosing graph.
#include "passes/inline_branch.h"

#include <map>

#include "passes/body_types.h"
#include "runtime/ndarray_element.h"
#include "support/error.h"

namespace tessel::passes {

bool inline_constant_branch(GraphBuilder& builder, const graph::Node& node,
                            const std::vector<const graph::Value*>& inputs) {
  if (node.op_type != "If" || inputs.empty() || !inputs[0] || !inputs[0]->is_constant())
    return false;
  const runtime::NDArray& cond = *inputs[0]->constant;
  if (cond.size() != 1) return false;  // the operator's checks report it
  const graph::Attribute* chosen =
      node.attribute(runtime::element_as_double(cond, 0) != 0 ? "then_branch" : "else_branch");
  if (!chosen || !chosen->graph) return false;
  const graph::Graph& branch = *chosen->graph;
  // A branch takes no inputs of its own: its inputs are the values it captures, the node's
  // inputs after the condition.
  if (branch.inputs().size() + 1 != inputs.size() ||
      branch.captured_inputs != branch.inputs().size())
    return false;
  std::vector<graph::Value*> body_inputs;
  for (size_t i = 1; i < node.inputs.size(); ++i) body_inputs.push_back(builder.value(node.inputs[i]));
  std::vector<graph::Value*> outputs = inline_body(builder, branch, body_inputs);
  for (size_t k = 0; k < node.outputs.size() && k < outputs.size(); ++k) {
    if (!node.outputs[k]) continue;
    graph::Node copy;
    copy.name = node.name;
    copy.op_type = "Identity";
    copy.opset = node.opset;
    copy.inputs = {outputs[k]};
    copy.outputs = {builder.define(node.outputs[k])};
    copy.outputs[0]->type = outputs[k]->type;
    builder.add_node(std::move(copy));
  }
  return true;
}

std::vector<graph::Value*> inline_body(GraphBuilder& builder, const graph::Graph& body,
                                       const std::vector<graph::Value*>& inputs) {
  TESSEL_ICHECK(inputs.size() == body.inputs().size(), "body '", body.name, "' takes ",
                body.inputs().size(), " inputs, given ", inputs.size());
  std::vector<graph::TensorType> types;
  std::vector<const runtime::NDArray*> values;
  for (const graph::Value* in : inputs) {
    types.push_back(in->type);
    values.push_back(in->constant.get());
  }
  graph::Graph typed = typed_body(body, types, values);
  // The typed body's values as values of the graph being built.
  std::map<const graph::Value*, graph::Value*> mapped;
  for (const graph::Value* in : typed.inputs())
    for (size_t i = 0; i < body.inputs().size(); ++i)
      if (body.inputs()[i]->name == in->name) mapped[in] = inputs[i];
  auto value_of = [&](const graph::Value* v) -> graph::Value* {
    if (!v) return nullptr;
    auto found = mapped.find(v);
    if (found != mapped.end()) return found->second;
    TESSEL_ICHECK(v->is_constant(), "body value '", v->name, "' is used before it is computed");
    return mapped[v] = builder.add_constant(v->name, v->constant);
  };
  for (const auto& source : typed.nodes()) {
    graph::Node copy;
    copy.name = source->name;
    copy.op_type = source->op_type;
    copy.domain = source->domain;
    copy.opset = source->opset;
    copy.attributes = source->attributes;
    for (const graph::Value* in : source->inputs) copy.inputs.push_back(value_of(in));
    for (const graph::Value* out : source->outputs)
      copy.outputs.push_back(out ? mapped[out] = builder.add_value(out->name, out->type) : nullptr);
    builder.add_node(std::move(copy));
  }
  std::vector<graph::Value*> outputs;
  for (const graph::Value* out : typed.outputs()) outputs.push_back(value_of(out));
  return outputs;
}

}  // namespace tessel::passes

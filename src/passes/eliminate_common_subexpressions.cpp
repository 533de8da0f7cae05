// eliminate_common_subexpressions: value numbering by a signature string, confirmed by a
// full comparison (attribute tensors and constant data compared byte by byte).
#include "passes/eliminate_common_subexpressions.h"

#include <cstring>
#include <map>
#include <set>

#include "passes/graph_builder.h"

namespace tessel::passes {

namespace {

bool is_random(const graph::Node& node) {
  static const std::set<std::string> random_ops = {"RandomNormal",     "RandomUniform",
                                                   "RandomNormalLike", "RandomUniformLike",
                                                   "Bernoulli",        "Multinomial"};
  return random_ops.count(node.op_type) > 0;
}

/// FNV-1a over the bytes of an array.
uint64_t hash_data(const runtime::NDArray& array) {
  uint64_t h = 1469598103934665603ull;
  const auto* bytes = static_cast<const unsigned char*>(array.data());
  for (int64_t k = 0; k < array.nbytes(); ++k) h = (h ^ bytes[k]) * 1099511628211ull;
  return h;
}

std::string constant_signature(const graph::Value& value) {
  return value.type.to_string() + "#" + std::to_string(hash_data(*value.constant));
}

/// The operator, the inputs (by the names of what stands for them) and the attribute text.
std::string node_signature(const graph::Node& node,
                           const std::vector<const graph::Value*>& inputs) {
  std::string sig = node.domain + "." + node.op_type + "/" + std::to_string(node.opset) + "(";
  for (const graph::Value* in : inputs) sig += (in ? "%" + in->name : std::string("_")) + ",";
  sig += ")";
  for (const auto& [name, attr] : node.attributes) sig += name + "=" + attr.to_string() + ";";
  return sig;
}

bool same_output_slots(const graph::Node& a, const graph::Node& b) {
  if (a.outputs.size() != b.outputs.size()) return false;
  for (size_t k = 0; k < a.outputs.size(); ++k)
    if ((a.outputs[k] == nullptr) != (b.outputs[k] == nullptr)) return false;
  return true;
}

}  // namespace

graph::Graph eliminate_common_subexpressions(const graph::Graph& graph) {
  GraphBuilder builder(graph);
  std::set<const graph::Value*> graph_outputs(graph.outputs().begin(), graph.outputs().end());

  std::map<std::string, std::vector<const graph::Value*>> constants;
  for (const auto& value : graph.values()) {
    if (!value->is_constant() || graph_outputs.count(value.get())) continue;
    auto& bucket = constants[constant_signature(*value)];
    const graph::Value* same = nullptr;
    for (const graph::Value* c : bucket)
      if (graph::same_data(c->constant.get(), value->constant.get())) same = c;
    if (same)
      builder.alias(value.get(), same);
    else
      bucket.push_back(value.get());
  }

  std::map<std::string, std::vector<const graph::Node*>> computed;
  for (const auto& node : graph.nodes()) {
    bool replaceable = !is_random(*node) && !node->outputs.empty();
    for (const graph::Value* out : node->outputs) replaceable &= !graph_outputs.count(out);
    auto& bucket = computed[node_signature(*node, builder.lookup(node->inputs))];
    const graph::Node* same = nullptr;
    for (const graph::Node* other : bucket)
      if (node->same_attributes(*other) && same_output_slots(*node, *other)) same = other;
    if (replaceable && same) {
      for (size_t k = 0; k < node->outputs.size(); ++k)
        if (node->outputs[k]) builder.alias(node->outputs[k], same->outputs[k]);
      continue;
    }
    builder.copy_node(*node);
    if (!is_random(*node)) bucket.push_back(node.get());
  }
  return builder.finish();
}

}  // namespace tessel::passes

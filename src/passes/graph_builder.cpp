// GraphBuilder: the source-to-new value map and the copy of nodes, inputs and outputs.
#include "passes/graph_builder.h"

#include "support/error.h"

namespace tessel::passes {

namespace {
bool is_graph_input(const graph::Value* v) {
  return !v->producer && !v->is_constant();
}
}  // namespace

GraphBuilder::GraphBuilder(const graph::Graph& source) : source_(source) {
  graph_.name = source.name;
  graph_.opsets = source.opsets;
}

const graph::Value* GraphBuilder::resolve(const graph::Value* v) const {
  for (auto it = aliases_.find(v); it != aliases_.end(); it = aliases_.find(v)) v = it->second;
  return v;
}

graph::Value* GraphBuilder::value(const graph::Value* v) {
  const graph::Value* r = resolve(v);
  if (auto it = map_.find(r); it != map_.end()) return it->second;
  if (auto it = pending_.find(r); it != pending_.end()) {
    graph::Value* constant = graph_.add_constant(unused_name(r->name), it->second->constant);
    pending_.erase(it);
    return map_[r] = constant;
  }
  if (r->is_constant()) return map_[r] = graph_.add_constant(unused_name(r->name), r->constant);
  TESSEL_ICHECK(is_graph_input(r), "value '", r->name, "' is used before its node is built");
  return define(r);
}

std::vector<graph::Value*> GraphBuilder::values(const std::vector<graph::Value*>& vs) {
  std::vector<graph::Value*> result;
  for (const graph::Value* v : vs) result.push_back(v ? value(v) : nullptr);
  return result;
}

std::vector<const graph::Value*> GraphBuilder::lookup(const std::vector<graph::Value*>& vs) const {
  std::vector<const graph::Value*> result;
  for (const graph::Value* v : vs) {
    const graph::Value* r = v ? resolve(v) : nullptr;
    auto mapped = r ? map_.find(r) : map_.end();
    auto pending = r ? pending_.find(r) : pending_.end();
    result.push_back(mapped != map_.end()        ? mapped->second
                     : pending != pending_.end() ? pending->second.get()
                                                 : r);
  }
  return result;
}

graph::Value* GraphBuilder::define(const graph::Value* v) {
  TESSEL_ICHECK(!is_defined(v), "value '", v->name, "' is defined twice");
  graph::Value* defined = graph_.add_value(unused_name(v->name), v->type);
  defined->kind = v->kind;
  map_[v] = defined;
  return defined;
}

void GraphBuilder::define_constant(const graph::Value* v,
                                   std::shared_ptr<const runtime::NDArray> data) {
  TESSEL_ICHECK(!is_defined(v), "value '", v->name, "' is defined twice");
  auto constant = std::make_unique<graph::Value>();
  constant->name = v->name;
  constant->type = graph::TensorType::of(graph::to_data_type(data->dtype()), data->shape());
  constant->constant = std::move(data);
  pending_[v] = std::move(constant);
}

void GraphBuilder::alias(const graph::Value* v, const graph::Value* same_as) {
  TESSEL_ICHECK(!is_defined(v), "value '", v->name, "' is defined before it is aliased");
  TESSEL_ICHECK(resolve(same_as) != v, "value '", v->name, "' aliased to itself");
  aliases_[v] = same_as;
}

bool GraphBuilder::has_value(const graph::Value* v) const {
  const graph::Value* r = resolve(v);
  return map_.count(r) || pending_.count(r) || r->is_constant() || is_graph_input(r);
}

bool GraphBuilder::is_defined(const graph::Value* v) const {
  return map_.count(v) || aliases_.count(v) || pending_.count(v) || structures_.count(v);
}

void GraphBuilder::define_structure(const graph::Value* v, Structure structure) {
  TESSEL_ICHECK(!is_defined(v), "value '", v->name, "' is defined twice");
  structures_[v] = std::move(structure);
}

const GraphBuilder::Structure* GraphBuilder::structure(const graph::Value* v) const {
  auto found = structures_.find(resolve(v));
  return found == structures_.end() ? nullptr : &found->second;
}

void GraphBuilder::bind(const graph::Value* v, graph::Value* existing) {
  TESSEL_ICHECK(!is_defined(v), "value '", v->name, "' is defined twice");
  map_[v] = existing;
}

const graph::Graph& GraphBuilder::keep(graph::Graph graph) {
  kept_.push_back(std::make_unique<graph::Graph>(std::move(graph)));
  return *kept_.back();
}

void GraphBuilder::replace_input(const graph::Value* v, std::vector<graph::Value*> inputs) {
  replaced_inputs_[v] = std::move(inputs);
}

std::string element_name(const std::string& name, size_t k) {
  return name + "[" + std::to_string(k) + "]";
}

graph::Node* GraphBuilder::copy_node(const graph::Node& node) {
  graph::Node copy;
  copy.name = node.name;
  copy.op_type = node.op_type;
  copy.domain = node.domain;
  copy.opset = node.opset;
  copy.attributes = node.attributes;
  copy.inputs = values(node.inputs);
  for (const graph::Value* out : node.outputs) copy.outputs.push_back(out ? define(out) : nullptr);
  return add_node(std::move(copy));
}

std::string GraphBuilder::fresh_name(const std::string& hint) {
  std::string name = hint;
  while (source_.find_value(name) || graph_.find_value(name))
    name = hint + "_" + std::to_string(next_name_++);
  return name;
}

std::string GraphBuilder::unused_name(const std::string& name) {
  // A name taken already comes from a body copied more than once (an unrolled loop).
  return graph_.find_value(name) ? fresh_name(name) : name;
}

graph::Value* GraphBuilder::add_value(const std::string& hint, graph::TensorType type) {
  return graph_.add_value(fresh_name(hint), std::move(type));
}

graph::Value* GraphBuilder::add_constant(const std::string& hint,
                                         std::shared_ptr<const runtime::NDArray> data) {
  return graph_.add_constant(fresh_name(hint), std::move(data));
}

graph::Node* GraphBuilder::add_node(graph::Node node) {
  if (!node.domain.empty() && !graph_.opsets.count(node.domain))
    graph_.opsets[node.domain] = node.opset;
  return graph_.add_node(std::move(node));
}

graph::Graph GraphBuilder::finish() {
  for (const graph::Value* in : source_.inputs()) {
    if (auto replaced = replaced_inputs_.find(in); replaced != replaced_inputs_.end()) {
      for (graph::Value* v : replaced->second) graph_.add_input(v);
      continue;
    }
    if (pending_.count(in)) continue;  // made a constant that nothing reads
    graph::Value* v = value(in);
    if (!v->is_constant()) graph_.add_input(v);
  }
  for (const graph::Value* out : source_.outputs()) {
    if (const Structure* s = structure(out)) {
      for (size_t k = 0; k < s->elements.size(); ++k) {
        graph::Node copy;
        copy.name = element_name(out->name, k);
        copy.op_type = "Identity";
        copy.opset = graph_.opsets.count("") ? graph_.opsets.at("") : 1;
        copy.inputs = {s->elements[k]};
        copy.outputs = {graph_.add_value(element_name(out->name, k), s->elements[k]->type)};
        graph_.add_output(add_node(std::move(copy))->outputs[0]);
      }
      continue;
    }
    graph::Value* v = value(out);
    TESSEL_ICHECK(v->name == out->name, "graph output '", out->name, "' would be renamed to '",
                  v->name, "'");
    graph_.add_output(v);
  }
  map_.clear();
  aliases_.clear();
  pending_.clear();
  structures_.clear();
  replaced_inputs_.clear();
  return std::move(graph_);
}

graph::Graph copy_graph(const graph::Graph& graph) {
  GraphBuilder builder(graph);
  for (const auto& node : graph.nodes()) builder.copy_node(*node);
  return builder.finish();
}

}  // namespace tessel::passes

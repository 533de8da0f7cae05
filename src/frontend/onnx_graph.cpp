// Building the graph IR from an ONNX ModelProto.
#include "frontend/onnx_graph.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "frontend/onnx_attribute.h"
#include "frontend/onnx_tensor.h"
#include "frontend/onnx_types.h"
#include "support/error.h"

namespace tessel::frontend {

namespace {

/// "ai.onnx" and "" both name the default ONNX domain; tessel uses "".
std::string normalize_domain(const std::string& domain) {
  return domain == "ai.onnx" ? std::string() : domain;
}

/// The label graph::Node::describe gives the node once it is built, for messages raised
/// while building it.
std::string describe_node(const onnx::NodeProto& node) {
  std::string op = node.domain().empty() ? node.op_type() : node.domain() + "." + node.op_type();
  if (!node.name().empty()) return "node '" + node.name() + "' (" + op + ")";
  std::string first_output = node.output_size() ? node.output(0) : std::string();
  return "node producing '" + (first_output.empty() ? "?" : first_output) + "' (" + op + ")";
}

/// What a value's declaration says of it: its kind, and its type when it names a tensor
/// with a shape (or the element type of a sequence or optional).
struct Declared {
  graph::ValueKind kind = graph::ValueKind::Tensor;
  std::optional<graph::TensorType> type;
};

/// The declaration of `info` (named `what` in errors): no type when it declares none, no
/// element type or no shape; types other than tensors, sequences of tensors and optionals of
/// either are errors.
Declared declared(const onnx::ValueInfoProto& info, const std::string& what) {
  if (!info.has_type() || info.type().value_case() == onnx::TypeProto::VALUE_NOT_SET) return {};
  const onnx::TypeProto& type = info.type();
  if (std::optional<StructuredType> structured = structured_type_from_onnx(type, info.name()))
    return {structured->kind, graph::TensorType{structured->dtype, {}}};
  if (type.has_tensor_type() &&
      (!type.tensor_type().has_shape() || !type.tensor_type().has_elem_type()))
    return {};
  return {graph::ValueKind::Tensor, tensor_type_from_onnx(type, what)};
}

/// A new value of `graph` named `name` as `declaration` says (no type: an empty one, typed
/// later).
graph::Value* add_declared(graph::Graph& graph, const std::string& name, const Declared& declaration) {
  graph::Value* value = graph.add_value(name, declaration.type.value_or(graph::TensorType{}));
  value->kind = declaration.kind;
  return value;
}

/// Builds one graph: the model's main graph, or a control-flow body (then `parent_` is the
/// builder of the enclosing graph, which resolves the names the body takes from outside).
class GraphBuilder {
 public:
  GraphBuilder(const onnx::ModelProto& model, const std::string& external_data_dir)
      : model_(model), proto_(model.graph()), external_data_dir_(external_data_dir) {}

  /// A builder for the body `proto` of a node of `parent`'s graph.
  GraphBuilder(const onnx::GraphProto& proto, GraphBuilder& parent, std::string what)
      : model_(parent.model_),
        proto_(proto),
        external_data_dir_(parent.external_data_dir_),
        parent_(&parent),
        what_(std::move(what)) {}

  graph::Graph build() {
    graph_.name = proto_.name();
    if (parent_)
      graph_.opsets = parent_->graph_.opsets;
    else
      import_opsets();
    import_initializers();
    import_inputs();
    collect_output_types();
    for (const onnx::NodeProto& node : proto_.node()) import_node(node);
    import_outputs();
    graph::verify(graph_);
    return std::move(graph_);
  }

  /// The values of enclosing graphs that a body reads, in the order of its captured inputs.
  const std::vector<graph::Value*>& captures() const { return captures_; }

 private:
  /// " (in node 'n' (Loop) attribute 'body')" inside a body, for messages; "" otherwise.
  std::string scope() const { return parent_ ? " (in " + what_ + ")" : ""; }

  /// The value `name` visible here: one of this graph, or else (in a body) one of an
  /// enclosing graph, which becomes a captured input of this body; nullptr when none is.
  graph::Value* resolve(const std::string& name) {
    if (graph::Value* local = graph_.find_value(name)) return local;
    if (!parent_) return nullptr;
    graph::Value* outer = parent_->resolve(name);
    if (!outer) return nullptr;
    graph::Value* input = graph_.add_value(name, outer->type);
    input->kind = outer->kind;
    graph_.add_input(input);
    captures_.push_back(outer);
    return input;
  }

  /// The graph attribute `attr` of the node `label` as a body, and the outer values it reads.
  std::pair<graph::Graph, std::vector<graph::Value*>> import_body(const onnx::AttributeProto& attr,
                                                                  const std::string& label) {
    GraphBuilder body(attr.g(), *this, label + " attribute '" + attr.name() + "'");
    graph::Graph built = body.build();
    return {std::move(built), body.captures_};
  }

  /// Gives every body of a node the union of their captures (in first-seen order) as its
  /// last inputs; returns that union, which the node passes after its own inputs.
  static std::vector<graph::Value*> unify_captures(
      std::vector<std::pair<graph::Graph, std::vector<graph::Value*>>>& bodies) {
    std::vector<graph::Value*> all;
    for (const auto& body : bodies)
      for (graph::Value* outer : body.second)
        if (std::find(all.begin(), all.end(), outer) == all.end()) all.push_back(outer);
    for (auto& [body, captured] : bodies) {
      size_t formal = body.inputs().size() - captured.size();
      std::vector<graph::Value*> inputs(body.inputs().begin(), body.inputs().begin() + formal);
      for (graph::Value* outer : all) {
        auto at = std::find(captured.begin(), captured.end(), outer);
        graph::Value* input = at != captured.end() ? body.inputs()[formal + (at - captured.begin())]
                                                   : body.add_value(outer->name, outer->type);
        input->kind = outer->kind;
        inputs.push_back(input);
      }
      body.set_inputs(std::move(inputs));
      body.captured_inputs = all.size();
    }
    return all;
  }

  void import_opsets() {
    for (const onnx::OperatorSetIdProto& opset : model_.opset_import()) {
      std::string domain = normalize_domain(opset.domain());
      if (opset.version() < 1 || opset.version() > std::numeric_limits<int>::max())
        TESSEL_USER_ERROR("opset_import for domain '", domain, "' has version ", opset.version(),
                          ", expected a positive int");
      auto [it, inserted] = graph_.opsets.emplace(domain, static_cast<int>(opset.version()));
      if (!inserted && it->second != opset.version())
        TESSEL_USER_ERROR("opset_import lists domain '", domain, "' twice (versions ", it->second,
                          " and ", opset.version(), ")");
    }
  }

  void import_initializers() {
    if (proto_.sparse_initializer_size())
      TESSEL_USER_ERROR("sparse initializer '", proto_.sparse_initializer(0).values().name(),
                        "': sparse tensors are not supported");
    for (const onnx::TensorProto& init : proto_.initializer()) {
      const std::string what = "initializer '" + init.name() + "'";
      if (init.name().empty()) TESSEL_USER_ERROR("an initializer has no name");
      auto data = std::make_shared<const runtime::NDArray>(
          tensor_from_onnx(init, what, external_data_dir_));
      graph_.add_constant(init.name(), std::move(data));
    }
  }

  /// A value named in messages, with the first node that reads it (or else the node that
  /// makes it).
  std::string value_label(const std::string& name) {
    if (node_of_value_.empty()) {
      for (const onnx::NodeProto& node : proto_.node())
        for (const std::string& output : node.output()) node_of_value_[output] = {&node, false};
      for (auto node = proto_.node().rbegin(); node != proto_.node().rend(); ++node)
        for (const std::string& input : node->input()) node_of_value_[input] = {&*node, true};
    }
    const std::string label = "value '" + name + "'";
    auto found = node_of_value_.find(name);
    if (found == node_of_value_.end()) return label;
    auto [node, reads] = found->second;
    return label + " (" + (reads ? "read by " : "made by ") + describe_node(*node) + ")";
  }

  void import_inputs() {
    for (const onnx::ValueInfoProto& input : proto_.input()) {
      graph::Value* existing = graph_.find_value(input.name());
      if (existing && existing->is_constant()) continue;  // IR < 4 lists initializers here too
      if (parent_) {  // a body's inputs take their types from the node that runs it
        graph_.add_input(
            add_declared(graph_, input.name(), declared(input, value_label(input.name()))));
        continue;
      }
      if (!input.has_type()) TESSEL_USER_ERROR("graph input '", input.name(), "' has no type");
      std::string what = value_label(input.name());
      Declared declaration = declared(input, what);
      if (declaration.kind == graph::ValueKind::Tensor)  // a tensor input needs its shape
        declaration.type = tensor_type_from_onnx(input.type(), what);
      graph_.add_input(add_declared(graph_, input.name(), declaration));
    }
  }

  /// The declarations of graph outputs, from the outputs or else from value_info.
  void collect_output_types() {
    std::set<std::string> output_names;
    for (const onnx::ValueInfoProto& output : proto_.output()) {
      output_names.insert(output.name());
      Declared declaration = declared(output, value_label(output.name()));
      if (declaration.type || declaration.kind != graph::ValueKind::Tensor)
        output_types_.emplace(output.name(), declaration);
    }
    for (const onnx::ValueInfoProto& info : proto_.value_info()) {
      if (!output_names.count(info.name()) || output_types_.count(info.name())) continue;
      Declared declaration = declared(info, value_label(info.name()));
      if (declaration.type) output_types_.emplace(info.name(), declaration);
    }
  }

  int opset_of(const std::string& domain, const std::string& label) const {
    auto it = graph_.opsets.find(domain);
    if (it == graph_.opsets.end())
      TESSEL_USER_ERROR(label, " uses domain '", domain,
                        "' but the model's opset_import has no entry for it");
    return it->second;
  }

  void import_node(const onnx::NodeProto& proto) {
    const std::string label = describe_node(proto) + scope();
    graph::Node node;
    node.name = proto.name();
    node.op_type = proto.op_type();
    node.domain = normalize_domain(proto.domain());
    node.opset = opset_of(node.domain, label);
    std::vector<std::pair<graph::Graph, std::vector<graph::Value*>>> bodies;
    std::vector<std::string> body_names;
    for (const onnx::AttributeProto& attr : proto.attribute()) {
      if (node.attributes.count(attr.name()) ||
          std::find(body_names.begin(), body_names.end(), attr.name()) != body_names.end())
        TESSEL_USER_ERROR(label, " has two attributes named '", attr.name(), "'");
      // The element type of an empty optional: tessel resolves optionals at compile time
      // and needs none.
      if (node.op_type == "Optional" && attr.type() == onnx::AttributeProto::TYPE_PROTO) continue;
      if (is_graph_attribute(attr)) {
        bodies.push_back(import_body(attr, label));
        body_names.push_back(attr.name());
        continue;
      }
      node.attributes.emplace(attr.name(), attribute_from_onnx(attr, label, external_data_dir_));
    }
    std::vector<graph::Value*> captured = unify_captures(bodies);
    for (size_t b = 0; b < bodies.size(); ++b)
      node.attributes.emplace(
          body_names[b], graph::Attribute::of_graph(
                             std::make_shared<const graph::Graph>(std::move(bodies[b].first))));
    for (int i = 0; i < proto.input_size(); ++i) {
      const std::string& name = proto.input(i);
      graph::Value* value = name.empty() ? nullptr : resolve(name);
      if (!name.empty() && !value)
        TESSEL_USER_ERROR(label, " input ", i, " '", name,
                          "' is not defined by any earlier node, graph input or initializer");
      node.inputs.push_back(value);
    }
    for (int i = 0; i < proto.output_size(); ++i) {
      const std::string& name = proto.output(i);
      if (name.empty()) {
        node.outputs.push_back(nullptr);
        continue;
      }
      if (graph_.find_value(name))
        TESSEL_USER_ERROR(label, " output ", i, " '", name,
                          "' is already defined by an earlier node, a graph input or an "
                          "initializer");
      auto found = output_types_.find(name);
      node.outputs.push_back(
          add_declared(graph_, name, found == output_types_.end() ? Declared{} : found->second));
    }
    node.inputs.insert(node.inputs.end(), captured.begin(), captured.end());
    graph_.add_node(std::move(node));
  }

  void import_outputs() {
    for (const onnx::ValueInfoProto& output : proto_.output()) {
      graph::Value* value = resolve(output.name());
      if (!value)
        TESSEL_USER_ERROR("graph output '", output.name(), "'", scope(),
                          " is not computed by any node and is not a graph input or an "
                          "initializer");
      graph_.add_output(value);
    }
  }

  const onnx::ModelProto& model_;
  const onnx::GraphProto& proto_;
  const std::string& external_data_dir_;
  GraphBuilder* parent_ = nullptr;
  /// For a body: "node 'n' (Loop) attribute 'body'", for messages.
  std::string what_;
  std::vector<graph::Value*> captures_;
  /// Per value name, the first node that reads it (true) or else the node that makes it.
  std::map<std::string, std::pair<const onnx::NodeProto*, bool>> node_of_value_;
  graph::Graph graph_;
  std::map<std::string, Declared> output_types_;
};

}  // namespace

graph::Graph graph_from_onnx(const onnx::ModelProto& model, const std::string& external_data_dir) {
  return GraphBuilder(model, external_data_dir).build();
}

}  // namespace tessel::frontend

// Sequences and optionals resolved at compile time (see sequences.h).
#include "passes/sequences.h"

#include <map>
#include <numeric>
#include <optional>
#include <set>

#include "executor/graph_inputs.h"
#include "executor/node_kernel.h"
#include "passes/body_types.h"
#include "passes/inline_branch.h"
#include "runtime/ndarray_element.h"
#include "support/error.h"

namespace tessel::passes {

namespace {

using graph::ValueKind;
using Structure = GraphBuilder::Structure;

/// The opset of the nodes the resolution adds (Split, Squeeze, Unsqueeze and Concat take
/// their sizes and axes as inputs from opset 13).
constexpr int kAddedOpset = 13;

/// The most trips a loop carrying a sequence is unrolled for.
constexpr int64_t kMaxUnrolledTrips = 4096;

bool is_structured(ValueKind kind) { return kind != ValueKind::Tensor; }

/// "a sequence", "an optional tensor", ...
std::string a_kind(ValueKind kind) {
  std::string name = graph::value_kind_name(kind);
  return (name[0] == 'o' ? "an " : "a ") + name;
}

const std::set<std::string>& structured_ops() {
  static const std::set<std::string> ops{
      "SequenceConstruct", "SequenceEmpty",   "SequenceInsert",     "SequenceErase",
      "SequenceAt",        "SequenceLength",  "ConcatFromSequence", "SplitToSequence",
      "SequenceMap",       "Optional",        "OptionalHasElement", "OptionalGetElement"};
  return ops;
}

/// One node resolved into `builder`.
class Resolver {
 public:
  Resolver(GraphBuilder& builder, const graph::Node& node,
           const std::vector<const graph::Value*>& inputs, const NodeFolder& fold)
      : b_(builder), node_(node), inputs_(inputs), fold_(fold) {}

  void resolve() {
    const std::string& op = node_.op_type;
    if (op == "SequenceConstruct") return construct();
    if (op == "SequenceEmpty") return define_structure(0, {true, {}});
    if (op == "SequenceInsert") return insert();
    if (op == "SequenceErase") return erase();
    if (op == "SequenceAt") {
      const Structure& s = sequence(0);
      return define_tensor(0, s.elements[position(1, s, false, -1)]);
    }
    if (op == "SequenceLength") return define_int(0, static_cast<int64_t>(sequence(0).elements.size()));
    if (op == "ConcatFromSequence") return concat();
    if (op == "SplitToSequence") return split();
    if (op == "SequenceMap") return map();
    if (op == "Optional") return optional();
    if (op == "OptionalHasElement") return has_element();
    if (op == "OptionalGetElement") return get_element();
    if (op == "Loop") return unroll();
    if (op == "Identity" && has_input(0) && b_.structure(node_.inputs[0])) {
      if (node_.outputs[0]) b_.define_structure(node_.outputs[0], *b_.structure(node_.inputs[0]));
      return;
    }
    if (op == "If" && carries_structures()) return take_branch();
    bool control_flow = op == "If" || op == "Scan";
    for (size_t i = 0; i < node_.inputs.size(); ++i)
      if (node_.inputs[i] && b_.structure(node_.inputs[i]) && control_flow)
        fail(input_label(i) + " is " + a_kind(b_.structure(node_.inputs[i])->kind) +
             ": control flow that carries or reads a sequence or optional is not supported "
             "(tessel resolves them at compile time, and unrolls only a Loop)");
    for (size_t i = 0; i < node_.inputs.size(); ++i)
      if (node_.inputs[i] && b_.structure(node_.inputs[i]))
        fail("input " + std::to_string(i) + " '" + node_.inputs[i]->name + "' is " +
             a_kind(b_.structure(node_.inputs[i])->kind) + ", which this operator does not take (tessel resolves sequences and optionals "
             "at compile time, and " + op + " does not select from one)");
    for (const graph::Value* out : node_.outputs)
      if (out && is_structured(out->kind))
        fail("output '" + out->name + "' is " + a_kind(out->kind) +
             " that " + op + " computes at run time; tessel resolves sequences and optionals "
             "at compile time, where their length and elements are known");
  }

 private:
  [[noreturn]] void fail(const std::string& message) const {
    TESSEL_USER_ERROR(node_.describe(), ": ", message);
  }

  bool has_input(size_t i) const { return i < node_.inputs.size() && node_.inputs[i]; }

  std::string input_label(size_t i) const {
    return "input " + std::to_string(i) + " '" + node_.inputs[i]->name + "'";
  }

  /// Input i, a resolved structure (a sequence unless `optional`).
  const Structure& structure(size_t i, bool optional) const {
    if (!has_input(i)) fail("input " + std::to_string(i) + " is missing");
    const Structure* s = b_.structure(node_.inputs[i]);
    if (!s)
      fail(input_label(i) + " is not a sequence or optional whose structure is known at "
           "compile time");
    bool is_optional = s->kind == ValueKind::OptionalTensor || s->kind == ValueKind::OptionalSequence;
    if (is_optional != optional)
      fail(input_label(i) + " is " + a_kind(s->kind) + ", expected " +
           (optional ? "an optional" : "a sequence"));
    return *s;
  }
  const Structure& sequence(size_t i) const { return structure(i, false); }

  /// Input i, a tensor of the graph being built.
  graph::Value* tensor(size_t i) {
    if (!has_input(i)) fail("input " + std::to_string(i) + " is missing");
    if (b_.structure(node_.inputs[i])) fail(input_label(i) + " must be a tensor");
    return b_.value(node_.inputs[i]);
  }

  /// The integers of input i, which must be known at compile time.
  std::vector<int64_t> constant_ints(size_t i, const std::string& what) const {
    const graph::Value* v = inputs_[i];
    if (!v || !v->is_constant())
      fail("the " + what + " (" + input_label(i) + ") must be known at compile time: tessel "
           "resolves sequences when it compiles a model");
    std::vector<int64_t> values;
    for (int64_t k = 0; k < v->constant->size(); ++k)
      values.push_back(static_cast<int64_t>(runtime::element_as_double(*v->constant, k)));
    return values;
  }

  /// The position input i gives in `s` (absent: `fallback`, counted from the end when
  /// negative); `insert` allows the position after the last element.
  size_t position(size_t i, const Structure& s, bool insert, int64_t fallback) const {
    auto n = static_cast<int64_t>(s.elements.size());
    int64_t p = fallback < 0 ? n + fallback + (insert ? 1 : 0) : fallback;
    if (has_input(i)) {
      std::vector<int64_t> given = constant_ints(i, "position");
      if (given.size() != 1) fail("the position must be one integer");
      p = given[0] < 0 ? given[0] + n : given[0];
      if (given[0] < -n || p > n - (insert ? 0 : 1))
        fail("position " + std::to_string(given[0]) + " is out of range for a sequence of " +
             std::to_string(n) + " elements (valid: " + std::to_string(-n) + " to " +
             std::to_string(insert ? n : n - 1) + ")");
    } else if (p < 0 || p > n - (insert ? 0 : 1)) {
      fail("the sequence has no element to " + std::string(insert ? "insert at" : "take"));
    }
    return static_cast<size_t>(p);
  }

  void define_structure(size_t k, Structure s) {
    if (k < node_.outputs.size() && node_.outputs[k]) b_.define_structure(node_.outputs[k], std::move(s));
  }

  /// Output k as a copy of `from`.
  void define_tensor(size_t k, graph::Value* from) {
    if (k >= node_.outputs.size() || !node_.outputs[k]) return;
    graph::Node copy;
    copy.name = node_.name;
    copy.op_type = "Identity";
    copy.opset = node_.opset;
    copy.inputs = {from};
    copy.outputs = {b_.define(node_.outputs[k])};
    copy.outputs[0]->type = from->type;
    copy.outputs[0]->kind = ValueKind::Tensor;
    b_.add_node(std::move(copy));
  }

  void define_int(size_t k, int64_t value) {
    if (node_.outputs[k]) b_.define_constant(node_.outputs[k], int_array(runtime::DType::Int(64), value));
  }

  graph::Value* ints(const std::vector<int64_t>& values) {
    runtime::NDArray a({static_cast<int64_t>(values.size())}, runtime::DType::Int(64));
    for (size_t k = 0; k < values.size(); ++k) a.data_as<int64_t>()[k] = values[k];
    return b_.add_constant(node_.name + ".sizes", std::make_shared<const runtime::NDArray>(std::move(a)));
  }

  /// Adds a typed node `op` on `inputs` with `outputs` outputs; returns them.
  std::vector<graph::Value*> add(const std::string& op, std::vector<graph::Value*> inputs,
                                 std::map<std::string, graph::Attribute> attributes,
                                 size_t outputs = 1) {
    graph::Node n;
    n.name = node_.name.empty() ? op : node_.name;
    n.op_type = op;
    n.opset = kAddedOpset;
    n.attributes = std::move(attributes);
    n.inputs = std::move(inputs);
    std::vector<graph::TensorType> types;
    std::vector<const runtime::NDArray*> values;
    for (const graph::Value* in : n.inputs) {
      types.push_back(in->type);
      values.push_back(in->constant.get());
    }
    for (size_t k = 0; k < outputs; ++k) n.outputs.push_back(b_.add_value(n.name + "." + op));
    std::vector<graph::TensorType> inferred = executor::infer_node(n, types, values, &body_typer());
    for (size_t k = 0; k < outputs; ++k) n.outputs[k]->type = inferred[k];
    return b_.add_node(std::move(n))->outputs;
  }

  void construct() {
    Structure s{true, {}, ValueKind::Sequence};
    for (size_t i = 0; i < node_.inputs.size(); ++i) {
      s.elements.push_back(tensor(i));
      if (s.elements.back()->type.dtype != s.elements[0]->type.dtype)
        fail(input_label(i) + " has element type " + s.elements.back()->type.dtype.to_string() +
             ", the sequence " + s.elements[0]->type.dtype.to_string());
    }
    define_structure(0, std::move(s));
  }

  void insert() {
    Structure s = sequence(0);
    graph::Value* t = tensor(1);
    s.elements.insert(s.elements.begin() + static_cast<std::ptrdiff_t>(position(2, s, true, -1)), t);
    define_structure(0, std::move(s));
  }

  void erase() {
    Structure s = sequence(0);
    s.elements.erase(s.elements.begin() + static_cast<std::ptrdiff_t>(position(1, s, false, -1)));
    define_structure(0, std::move(s));
  }

  void concat() {
    const Structure& s = sequence(0);
    if (s.elements.empty()) fail("the sequence is empty: there is nothing to concatenate");
    const graph::Attribute* axis_attr = node_.attribute("axis");
    if (!axis_attr) fail("attribute 'axis' is required");
    const graph::Attribute* new_axis = node_.attribute("new_axis");
    bool stack = new_axis && new_axis->i != 0;
    auto rank = static_cast<int64_t>(s.elements[0]->type.rank()) + (stack ? 1 : 0);
    int64_t axis = axis_attr->i < 0 ? axis_attr->i + rank : axis_attr->i;
    if (axis < 0 || axis >= rank)
      fail("axis " + std::to_string(axis_attr->i) + " is out of range for rank " + std::to_string(rank));
    std::vector<graph::Value*> parts = s.elements;
    if (stack)
      for (graph::Value*& part : parts) part = add("Unsqueeze", {part, ints({axis})}, {})[0];
    define_tensor(0, add("Concat", parts, {{"axis", graph::Attribute::of_int(axis)}})[0]);
  }

  void split() {
    graph::Value* x = tensor(0);
    const graph::Attribute* axis_attr = node_.attribute("axis");
    const graph::Attribute* keepdims_attr = node_.attribute("keepdims");
    int64_t rank = x->type.rank();
    int64_t axis = axis_attr ? axis_attr->i : 0;
    if (axis < -rank || axis >= rank)
      fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    if (axis < 0) axis += rank;
    int64_t length = x->type.shape()[static_cast<size_t>(axis)];
    std::vector<int64_t> sizes;
    bool squeeze = false;
    if (!has_input(1)) {
      sizes.assign(static_cast<size_t>(length), 1);
      squeeze = keepdims_attr && keepdims_attr->i == 0;
    } else {
      std::vector<int64_t> split = constant_ints(1, "split");
      if (inputs_[1]->type.rank() == 0) {
        if (split[0] <= 0) fail("the split size is " + std::to_string(split[0]) + ", expected > 0");
        for (int64_t at = 0; at < length; at += split[0]) sizes.push_back(std::min(split[0], length - at));
      } else {
        sizes = split;
        if (std::accumulate(sizes.begin(), sizes.end(), int64_t{0}) != length)
          fail("the split sizes add up to " +
               std::to_string(std::accumulate(sizes.begin(), sizes.end(), int64_t{0})) +
               ", not the extent " + std::to_string(length) + " of axis " + std::to_string(axis));
      }
    }
    Structure s{true, {}, ValueKind::Sequence};
    if (!sizes.empty())
      s.elements = add("Split", {x, ints(sizes)}, {{"axis", graph::Attribute::of_int(axis)}}, sizes.size());
    if (squeeze)
      for (graph::Value*& part : s.elements) part = add("Squeeze", {part, ints({axis})}, {})[0];
    define_structure(0, std::move(s));
  }

  void map() {
    const graph::Attribute* body_attr = node_.attribute("body");
    if (!body_attr || !body_attr->graph) fail("attribute 'body' is required");
    const graph::Graph& body = *body_attr->graph;
    size_t formal = node_.inputs.size() - body.captured_inputs;
    size_t length = sequence(0).elements.size();
    for (size_t i = 1; i < formal; ++i)
      if (has_input(i) && b_.structure(node_.inputs[i]) &&
          sequence(i).elements.size() != length)
        fail(input_label(i) + " has " + std::to_string(sequence(i).elements.size()) +
             " elements, input 0 " + std::to_string(length));
    std::vector<Structure> outputs(node_.outputs.size(), Structure{true, {}, ValueKind::Sequence});
    for (size_t e = 0; e < length; ++e) {
      std::vector<graph::Value*> body_inputs;
      for (size_t i = 0; i < node_.inputs.size(); ++i)
        body_inputs.push_back(i < formal && b_.structure(node_.inputs[i])
                                  ? sequence(i).elements[e]
                                  : tensor(i));
      std::vector<graph::Value*> results = inline_body(b_, body, body_inputs);
      if (results.size() != outputs.size())
        fail("the body has " + std::to_string(results.size()) + " outputs, the node " +
             std::to_string(outputs.size()));
      for (size_t k = 0; k < results.size(); ++k) outputs[k].elements.push_back(results[k]);
    }
    for (size_t k = 0; k < outputs.size(); ++k) define_structure(k, std::move(outputs[k]));
  }

  void optional() {
    if (!has_input(0)) return define_structure(0, {false, {}, ValueKind::OptionalTensor});
    if (const Structure* s = b_.structure(node_.inputs[0])) {
      if (s->kind != ValueKind::Sequence) fail(input_label(0) + " is already an optional");
      return define_structure(0, {true, s->elements, ValueKind::OptionalSequence});
    }
    define_structure(0, {true, {tensor(0)}, ValueKind::OptionalTensor});
  }

  void has_element() {
    if (!has_input(0)) return define_int_bool(false);
    const Structure* s = b_.structure(node_.inputs[0]);
    define_int_bool(!s || s->present);  // a tensor or a sequence (opset 18) holds a value
  }

  void define_int_bool(bool value) {
    if (node_.outputs[0]) b_.define_constant(node_.outputs[0], int_array(runtime::DType::Bool(), value));
  }

  void get_element() {
    const Structure* s = has_input(0) ? b_.structure(node_.inputs[0]) : nullptr;
    if (!s) return define_tensor(0, tensor(0));  // a tensor passes through (opset 18)
    if (s->kind == ValueKind::Sequence) return define_structure(0, *s);
    if (!s->present) fail(input_label(0) + " is an empty optional: it has no element to get");
    if (s->kind == ValueKind::OptionalSequence)
      return define_structure(0, {true, s->elements, ValueKind::Sequence});
    define_tensor(0, s->elements[0]);
  }

  /// Whether a sequence or optional goes into or comes out of the node.
  bool carries_structures() const {
    for (const graph::Value* in : node_.inputs)
      if (in && b_.structure(in)) return true;
    for (const graph::Value* out : node_.outputs)
      if (out && is_structured(out->kind)) return true;
    return false;
  }

  /// If(cond, captured...) that gives or reads sequences or optionals: with the condition
  /// known at compile time, the branch it takes, resolved like the graph around it.
  void take_branch() {
    const char* name = constant_ints(0, "condition").at(0) != 0 ? "then_branch" : "else_branch";
    const graph::Attribute* chosen = node_.attribute(name);
    if (!chosen || !chosen->graph) fail("attribute '" + std::string(name) + "' is required");
    const graph::Graph& branch = b_.keep(copy_graph(*chosen->graph));
    const auto& in = branch.inputs();
    if (in.size() + 1 != node_.inputs.size() || branch.outputs().size() != node_.outputs.size())
      fail("the " + std::string(name) + " does not fit the node's inputs and outputs");
    for (size_t c = 0; c < in.size(); ++c) b_.alias(in[c], node_.inputs[1 + c]);
    for (const auto& n : branch.nodes()) fold_(*n);
    for (size_t k = 0; k < node_.outputs.size(); ++k) {
      Carried result = carried(branch.outputs()[k]);
      if (result.structure)
        define_structure(k, *result.structure);
      else
        define_tensor(k, result.tensor);
    }
  }

  /// A loop state or scan value as the unrolling carries it: a structure, or a tensor.
  struct Carried {
    std::optional<Structure> structure;
    graph::Value* tensor = nullptr;
  };

  Carried carried(const graph::Value* v) {
    if (const Structure* s = b_.structure(v)) return {*s, nullptr};
    return {std::nullopt, b_.value(v)};
  }

  /// Loop(M, cond, states..., captured...) with body (iteration, cond, states...,
  /// captured...) -> (cond, states..., scan slices...), unrolled trip by trip.
  void unroll() {
    const graph::Attribute* body_attr = node_.attribute("body");
    if (!body_attr || !body_attr->graph) fail("attribute 'body' is required");
    const graph::Graph& body = *body_attr->graph;
    size_t captured = body.captured_inputs;
    if (node_.inputs.size() < 2 + captured || body.outputs().empty())
      fail("the body does not fit the loop's inputs");
    size_t states = node_.inputs.size() - 2 - captured;
    if (body.outputs().size() < 1 + states) fail("the body returns fewer states than the loop has");
    size_t scans = body.outputs().size() - 1 - states;
    const std::string why =
        "a Loop that carries a sequence or optional, or whose body needs per-trip values as "
        "constants, is unrolled at compile time";
    if (!has_input(0)) fail(why + ", and needs a trip count");
    int64_t trips = constant_ints(0, "trip count").at(0);
    if (trips > kMaxUnrolledTrips)
      fail(why + "; " + std::to_string(trips) + " trips are more than " +
           std::to_string(kMaxUnrolledTrips));
    bool go_on = !has_input(1) || constant_ints(1, "condition").at(0) != 0;
    std::vector<Carried> state;
    for (size_t j = 0; j < states; ++j) state.push_back(carried(node_.inputs[2 + j]));
    std::vector<std::vector<graph::Value*>> slices(scans);
    for (int64_t t = 0; t < trips && go_on; ++t) {
      const graph::Graph& trip = b_.keep(copy_graph(body));
      const auto& in = trip.inputs();
      b_.define_constant(in[0], int_array(runtime::DType::Int(64), t));
      b_.define_constant(in[1], int_array(runtime::DType::Bool(), 1));
      for (size_t j = 0; j < states; ++j) {
        if (state[j].structure)
          b_.define_structure(in[2 + j], *state[j].structure);
        else
          b_.bind(in[2 + j], state[j].tensor);
      }
      for (size_t c = 0; c < captured; ++c) b_.alias(in[2 + states + c], node_.inputs[2 + states + c]);
      for (const auto& n : trip.nodes()) fold_(*n);
      const auto& out = trip.outputs();
      const graph::Value* condition = b_.lookup({out[0]})[0];
      if (!condition->is_constant())
        fail("the condition its body computes must be known at compile time, for the loop to "
             "be unrolled");
      go_on = runtime::element_as_double(*condition->constant, 0) != 0;
      for (size_t j = 0; j < states; ++j) state[j] = carried(out[1 + j]);
      for (size_t k = 0; k < scans; ++k) {
        Carried slice = carried(out[1 + states + k]);
        if (slice.structure) fail("a scan output of the body is a sequence");
        slices[k].push_back(slice.tensor);
      }
    }
    for (size_t j = 0; j < states; ++j) {
      if (state[j].structure)
        define_structure(j, *state[j].structure);
      else
        define_tensor(j, state[j].tensor);
    }
    for (size_t k = 0; k < scans; ++k) {
      if (slices[k].empty()) fail("the loop ran no trip: its scan outputs would be empty");
      for (graph::Value*& slice : slices[k]) slice = add("Unsqueeze", {slice, ints({0})}, {})[0];
      define_tensor(states + k, add("Concat", slices[k], {{"axis", graph::Attribute::of_int(0)}})[0]);
    }
  }

  static std::shared_ptr<const runtime::NDArray> int_array(runtime::DType dtype, int64_t value) {
    auto a = std::make_shared<runtime::NDArray>(runtime::NDArray::zeros({}, dtype));
    runtime::set_element_from_double(*a, 0, static_cast<double>(value));
    return a;
  }

  GraphBuilder& b_;
  const graph::Node& node_;
  const std::vector<const graph::Value*>& inputs_;
  const NodeFolder& fold_;
};

}  // namespace

bool resolve_structured_node(GraphBuilder& builder, const graph::Node& node,
                             const std::vector<const graph::Value*>& inputs, const NodeFolder& fold) {
  bool involved = node.domain.empty() && structured_ops().count(node.op_type);
  for (const graph::Value* in : node.inputs) involved |= in && builder.structure(in);
  for (const graph::Value* out : node.outputs) involved |= out && is_structured(out->kind);
  // A Loop whose body needs per-trip values as constants, with its trip count (and
  // condition) known: unrolled too.
  auto known = [&](size_t i) { return i < inputs.size() && inputs[i] && inputs[i]->is_constant(); };
  bool condition_known = inputs.size() < 2 || !inputs[1] || known(1);
  involved |= node.op_type == "Loop" && node.domain.empty() && known(0) && condition_known &&
              executor::body_needs_trip_values(node);
  if (!involved) return false;
  Resolver(builder, node, inputs, fold).resolve();
  return true;
}

graph::Graph flatten_structured_inputs(const graph::Graph& graph,
                                       const std::vector<InputStructure>& structures) {
  const auto& inputs = graph.inputs();
  if (structures.size() != inputs.size())
    TESSEL_USER_ERROR("graph '", graph.name, "' has ", inputs.size(), " inputs, given ",
                      structures.size(), " structures");
  GraphBuilder b(graph);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const graph::Value* in = inputs[i];
    if (!is_structured(in->kind)) continue;
    const InputStructure& s = structures[i];
    std::string what = "graph input " + std::to_string(i) + " '" + in->name + "' (" +
                       graph::value_kind_name(in->kind) + ")";
    if (in->kind == ValueKind::Sequence && !s.present) TESSEL_USER_ERROR(what, ": a sequence holds a value");
    if (!s.present && !s.elements.empty()) TESSEL_USER_ERROR(what, ": an empty optional has no elements");
    if (in->kind == ValueKind::OptionalTensor && s.present && s.elements.size() != 1)
      TESSEL_USER_ERROR(what, ": holds one tensor, given ", s.elements.size());
    std::vector<graph::Value*> elements;
    for (size_t k = 0; k < s.elements.size(); ++k) {
      if (s.elements[k].dtype != in->type.dtype)
        TESSEL_USER_ERROR(what, ": element ", k, " has element type ", s.elements[k].dtype.to_string(),
                          ", the input declares ", in->type.dtype.to_string());
      elements.push_back(b.add_value(element_name(in->name, k), s.elements[k]));
    }
    b.replace_input(in, elements);
    auto add = [&](const std::string& op, std::vector<graph::Value*> node_inputs, graph::Value* out) {
      graph::Node n;
      n.name = in->name;
      n.op_type = op;
      n.opset = 17;
      n.inputs = std::move(node_inputs);
      n.outputs = {out};
      b.add_node(std::move(n));
    };
    if (in->kind == ValueKind::Sequence) {
      add("SequenceConstruct", elements, b.define(in));
    } else if (in->kind == ValueKind::OptionalSequence && s.present) {
      graph::Value* sequence = b.add_value(in->name + ".sequence", in->type);
      sequence->kind = ValueKind::Sequence;
      add("SequenceConstruct", elements, sequence);
      add("Optional", {sequence}, b.define(in));
    } else {
      add("Optional", elements, b.define(in));
    }
  }
  for (const auto& node : graph.nodes()) b.copy_node(*node);
  return b.finish();
}

}  // namespace tessel::passes

// The high-level graph IR: a typed dataflow graph of operator calls.
//
// A Graph owns its Values and Nodes. A Value is a tensor with a TensorType, produced by one
// node, or a graph input, or a constant (an initializer, with its data). A Node calls an
// operator (op_type in a domain, at the opset version the model imports) with attributes,
// input values and output values; an omitted optional input or output is nullptr. Nodes are
// kept in topological order (the verifier checks it).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/attribute.h"
#include "graph/tensor_type.h"
#include "runtime/ndarray.h"

namespace tessel::graph {

struct Node;

/// A tensor value of the graph.
/// What a value holds. Sequences and optionals have a structure (a length, a presence) that
/// the compiler resolves at compile time (passes/sequences.h): graph inputs of those kinds
/// are given as their elements, and the sequence and optional operators become the tensors
/// they select, so that kernels see only tensors.
enum class ValueKind : uint8_t {
  Tensor,
  Sequence,          ///< of tensors of element type `type.dtype`
  OptionalTensor,    ///< empty, or a tensor of `type`
  OptionalSequence,  ///< empty, or a sequence of tensors of element type `type.dtype`
};

/// "tensor", "sequence", "optional tensor", "optional sequence".
const char* value_kind_name(ValueKind kind);

struct Value {
  std::string name;
  TensorType type;
  /// A tensor, or a sequence or optional whose element type is `type.dtype`.
  ValueKind kind = ValueKind::Tensor;
  /// The node computing this value; nullptr for graph inputs and constants.
  Node* producer = nullptr;
  /// The data of a constant (initializer); nullptr otherwise.
  std::shared_ptr<const runtime::NDArray> constant;

  bool is_constant() const { return constant != nullptr; }
};

/// One operator call.
struct Node {
  std::string name;
  std::string op_type;
  /// "" is the default ONNX domain.
  std::string domain;
  /// The opset version of `domain` that the model imports.
  int opset = 0;
  std::map<std::string, Attribute> attributes;
  std::vector<Value*> inputs;
  std::vector<Value*> outputs;

  /// The attribute `name`, or nullptr.
  const Attribute* attribute(const std::string& attr_name) const;
  /// Whether the node has a body (a graph attribute): If, Loop, Scan.
  bool has_body() const;
  /// "node 'name' (Op)" (or "node #k (Op)" when unnamed), for error messages.
  std::string describe() const;
  /// Whether `other` has the same attributes, each of the same value (same_attribute).
  bool same_attributes(const Node& other) const;
};

class Graph {
 public:
  Graph() = default;
  Graph(Graph&&) = default;
  Graph& operator=(Graph&&) = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  std::string name;

  /// For a control-flow body: how many of its inputs, the last ones, are values of the
  /// enclosing graphs that the body reads (ONNX lets a body name them; the importer makes
  /// them inputs). The node owning the body passes them as its last inputs, in this order;
  /// every body of one node captures the same list.
  size_t captured_inputs = 0;

  /// A new value named `name` (CompileError when the name is taken).
  Value* add_value(const std::string& value_name, TensorType type);
  /// A new constant value holding `data`; its type is taken from the data.
  Value* add_constant(const std::string& value_name,
                      std::shared_ptr<const runtime::NDArray> data);
  /// Appends a node; sets the producer of its outputs (CompileError when an output already
  /// has a producer or is a graph input / constant).
  Node* add_node(Node node);
  void add_input(Value* value) { inputs_.push_back(value); }
  /// Replaces the list of inputs (e.g. to reorder them).
  void set_inputs(std::vector<Value*> values) { inputs_ = std::move(values); }
  void add_output(Value* value) { outputs_.push_back(value); }

  /// The value named `name`, or nullptr.
  Value* find_value(const std::string& value_name) const;

  const std::vector<Value*>& inputs() const { return inputs_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  const std::vector<std::unique_ptr<Node>>& nodes() const { return nodes_; }
  const std::vector<std::unique_ptr<Value>>& values() const { return values_; }

  /// Opset version imported per domain ("" = ONNX).
  std::map<std::string, int> opsets;

 private:
  std::vector<std::unique_ptr<Value>> values_;
  std::map<std::string, Value*> by_name_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
};

/// The element type of runtime data as the compiler's DataType, and back.
ir::DataType to_data_type(runtime::DType dtype);
runtime::DType to_runtime_dtype(ir::DataType dtype);

/// Checks the graph's invariants: every node input is produced earlier (by a node, a graph
/// input or a constant), every value has one producer, graph outputs are defined, names are
/// unique. Throws CompileError naming the first problem.
void verify(const Graph& graph);

/// Readable text of the graph: inputs, constants (type only), one line per node, outputs.
std::string to_string(const Graph& graph);

}  // namespace tessel::graph

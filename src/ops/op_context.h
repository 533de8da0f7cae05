// OpContext: what an operator's inference, compute and schedule see of the node being
// compiled: the node with its attributes (defaults applied from the schema), the opset,
// its inputs' types and, where known at compile time, their constant values.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "schedules/knobs.h"
#include "target/target.h"

namespace tessel::ops {

struct OpDef;

/// The output types of a control-flow body (If's branches, Loop's and Scan's body) run with
/// inputs of `input_types`, `input_values[i]` the value of input i where known. The graph
/// passes provide it: typing a body takes the passes, which operators cannot call.
using BodyTyper = std::function<std::vector<graph::TensorType>(
    const graph::Graph& body, const std::vector<graph::TensorType>& input_types,
    const std::vector<const runtime::NDArray*>& input_values)>;

class OpContext {
 public:
  /// `input_types[i]` / `input_values[i]` describe node.inputs[i] (ignored when absent);
  /// `input_values[i]` is nullptr unless the value is known at compile time.
  /// `body_typer` (kept by the caller) types control-flow bodies; without one, operators
  /// with bodies cannot be typed.
  OpContext(const graph::Node& node, const OpDef& def, std::vector<graph::TensorType> input_types,
            std::vector<const runtime::NDArray*> input_values,
            const BodyTyper* body_typer = nullptr);

  const graph::Node& node() const { return node_; }
  const OpDef& def() const { return def_; }
  int opset() const { return node_.opset; }

  /// Number of input slots of the node, including omitted optional ones.
  size_t num_inputs() const { return node_.inputs.size(); }
  /// Whether input `i` is given (slot exists and is not an omitted optional input).
  bool has_input(size_t i) const;
  /// Type of input `i`; fails (CompileError) when the input is absent.
  const graph::TensorType& input_type(size_t i) const;
  /// Static shape of input `i`.
  std::vector<int64_t> input_shape(size_t i) const;
  /// The constant value of input `i`, or nullptr when it is not known at compile time.
  const runtime::NDArray* input_value(size_t i) const;
  /// The value of input `i` converted to int64 / double (any numeric dtype); fails with a
  /// message naming the input when the value is not known at compile time.
  std::vector<int64_t> input_ints(size_t i) const;
  std::vector<double> input_floats(size_t i) const;

  /// Whether the node sets attribute `name` (schema defaults do not count).
  bool has_attr(const std::string& name) const;
  /// Attribute values, from the node or the schema's default; fail when neither has one or
  /// the node's attribute has another kind.
  int64_t attr_int(const std::string& name) const;
  double attr_float(const std::string& name) const;
  std::string attr_string(const std::string& name) const;
  std::vector<int64_t> attr_ints(const std::string& name) const;
  std::vector<double> attr_floats(const std::string& name) const;
  std::vector<std::string> attr_strings(const std::string& name) const;
  const runtime::NDArray& attr_tensor(const std::string& name) const;
  /// The body in graph attribute `name` (required).
  const graph::Graph& attr_graph(const std::string& name) const;
  /// The output types of `body` for inputs of `input_types` and, where known, values
  /// (through the BodyTyper); fails when the context has none.
  std::vector<graph::TensorType> body_output_types(
      const graph::Graph& body, const std::vector<graph::TensorType>& input_types,
      const std::vector<const runtime::NDArray*>& input_values) const;

  /// The values chosen for the schedule's knobs (schedules/knobs.h); none by default.
  const schedules::KnobValues& knobs() const;
  /// Makes the schedule read `knobs` (kept by the caller; nullptr: the defaults).
  void set_knobs(const schedules::KnobValues* knobs) { knobs_ = knobs; }

  /// The target the schedule is for; an internal error where the caller set none (contexts
  /// that only infer types or fold need none).
  const target::Target& target() const;
  /// Makes the schedule size itself by `target` (kept by the caller).
  void set_target(const target::Target* target) { target_ = target; }

  /// Throws CompileError "<node description>, opset N: <message>".
  [[noreturn]] void fail(const std::string& message) const;

 private:
  const graph::Attribute& attr(const std::string& name, graph::AttrKind kind) const;

  const graph::Node& node_;
  const OpDef& def_;
  std::vector<graph::TensorType> input_types_;
  std::vector<const runtime::NDArray*> input_values_;
  const schedules::KnobValues* knobs_ = nullptr;
  const target::Target* target_ = nullptr;
  const BodyTyper* body_typer_ = nullptr;
};

}  // namespace tessel::ops

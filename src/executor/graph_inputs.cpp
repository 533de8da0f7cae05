// value_dependent_inputs and check_graph_input.
#include "executor/graph_inputs.h"

#include <algorithm>
#include <cstddef>
#include <set>
#include <sstream>
#include <string>

#include "ops/registry.h"
#include "support/error.h"

namespace tessel::executor {
std::string describe_graph_input(const graph::Value& value, size_t index) {
  return "graph input " + std::to_string(index) + " '" + value.name + "'";
}

namespace {

/// Whether a sequence or optional goes into or comes out of `node`.
bool carries_structures(const graph::Node& node) {
  for (const graph::Value* v : node.inputs)
    if (v && v->kind != graph::ValueKind::Tensor) return true;
  for (const graph::Value* v : node.outputs)
    if (v && v->kind != graph::ValueKind::Tensor) return true;
  return false;
}

}  // namespace

bool body_needs_trip_values(const graph::Node& loop) {
  const graph::Attribute* body_attr = loop.attribute("body");
  if (loop.op_type != "Loop" || !loop.domain.empty() || !body_attr || !body_attr->graph)
    return false;
  const graph::Graph& body = *body_attr->graph;
  const auto& inputs = body.inputs();
  // The iteration number, the condition and the states change from trip to trip; the
  // captured values do not, nor do shapes (a body is typed once for all trips).
  std::set<const graph::Value*> per_trip(
      inputs.begin(),
      inputs.end() - static_cast<std::ptrdiff_t>(std::min(body.captured_inputs, inputs.size())));
  for (const auto& node : body.nodes()) {
    const ops::OpDef* def = ops::OpRegistry::global().find(node->op_type);
    if (def && node->domain.empty())
      for (int i : def->value_inputs)
        if (static_cast<size_t>(i) < node->inputs.size() && per_trip.count(node->inputs[i]))
          return true;
    if (node->op_type == "Shape" || node->op_type == "Size") continue;
    bool reads_per_trip = false;
    for (const graph::Value* in : node->inputs) reads_per_trip |= in && per_trip.count(in);
    if (reads_per_trip)
      for (const graph::Value* out : node->outputs)
        if (out) per_trip.insert(out);
  }
  return false;
}

std::vector<bool> value_dependent_inputs(const graph::Graph& graph) {
  std::set<const graph::Value*> needed;
  const auto& nodes = graph.nodes();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    const graph::Node& node = **it;
    const ops::OpDef* def = ops::OpRegistry::global().find(node.op_type);
    if (!def) continue;
    // Also for an operator that could take them at run time as a data-dependent step
    // (TopK's k): a compilation for the value gives the kernel form, whose outputs any
    // node may read.
    for (int i : def->value_inputs)
      if (static_cast<size_t>(i) < node.inputs.size() && node.inputs[i])
        needed.insert(node.inputs[i]);
    // An If or Loop carrying a sequence or optional resolves when compiled, and a Loop
    // whose body needs per-trip values is unrolled (passes/sequences.h): from the
    // condition, and a Loop's trip count.
    size_t control_inputs = node.op_type == "If" ? 1 : node.op_type == "Loop" ? 2 : 0;
    if (node.domain.empty() && (carries_structures(node) || body_needs_trip_values(node)))
      for (size_t i = 0; i < control_inputs && i < node.inputs.size(); ++i)
        if (node.inputs[i]) needed.insert(node.inputs[i]);
    bool output_needed = false;
    for (const graph::Value* out : node.outputs) output_needed |= out && needed.count(out);
    if (output_needed && !def->fold)
      for (const graph::Value* in : node.inputs)
        if (in) needed.insert(in);
  }
  std::vector<bool> dependent;
  for (const graph::Value* in : graph.inputs()) dependent.push_back(needed.count(in) > 0);
  return dependent;
}

void check_graph_input(const graph::Value& value, size_t index, const runtime::NDArray& array) {
  ir::DataType dtype = graph::to_data_type(array.dtype());
  if (dtype != value.type.dtype)
    TESSEL_USER_ERROR(describe_graph_input(value, index), ": expected dtype ",
                      value.type.dtype.to_string(), ", got ", dtype.to_string());
  const auto& dims = value.type.dims;
  if (dims.empty()) return;  // rank not declared (or a scalar)
  if (static_cast<int>(dims.size()) != array.ndim())
    TESSEL_USER_ERROR(describe_graph_input(value, index), ": expected rank ", dims.size(), " (",
                      value.type.to_string(), "), got rank ", array.ndim());
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d].is_static() && dims[d].value != array.shape()[d])
      TESSEL_USER_ERROR(describe_graph_input(value, index), ": dimension ", d, " must be ",
                        dims[d].value, " (", value.type.to_string(), "), got ", array.shape()[d]);
}

std::string compilation_key(const graph::Graph& graph, const std::vector<bool>& value_dependent,
                            const std::vector<const runtime::NDArray*>& inputs) {
  const auto& graph_inputs = graph.inputs();
  if (inputs.size() != graph_inputs.size())
    TESSEL_USER_ERROR("graph '", graph.name, "' takes ", graph_inputs.size(), " inputs, got ",
                      inputs.size());
  std::ostringstream key;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]) TESSEL_USER_ERROR(describe_graph_input(*graph_inputs[i], i), " is not given");
    check_graph_input(*graph_inputs[i], i, *inputs[i]);
    key << inputs[i]->dtype().to_string() << "[";
    for (int64_t d : inputs[i]->shape()) key << d << ",";
    key << "]";
    if (value_dependent[i])
      key.write(static_cast<const char*>(inputs[i]->data()),
                static_cast<std::streamsize>(inputs[i]->nbytes()));
    key << ";";
  }
  return key.str();
}

}  // namespace tessel::executor

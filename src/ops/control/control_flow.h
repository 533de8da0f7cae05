// If, Loop and Scan: how a control-flow node passes values to its bodies and takes their
// results back, read from the node once and shared by type inference (control_flow_ops.cpp)
// and by the compiler, which compiles each body as a graph of its own and has the runtime
// run it (compiler/control_flow_plan.cpp). These operators have no compute.
//
// A body's inputs are its formal ones (none for If; iteration number, condition and carried
// values for Loop; states and scan slices for Scan), then the values of enclosing graphs it
// reads (graph::Graph::captured_inputs), which the node passes as its last inputs.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "ops/op_context.h"

namespace tessel::ops::control {

/// If(cond, captures...) -> the outputs of the branch that cond chooses.
struct IfSignature {
  const graph::Graph* then_branch = nullptr;
  const graph::Graph* else_branch = nullptr;
};

/// Loop(M, cond, v_initial[N], captures...) -> (v_final[N], scan[K]); its body takes
/// (iteration, cond, v[N], captures...) and gives (cond, v[N], scan slices[K]).
struct LoopSignature {
  const graph::Graph* body = nullptr;
  size_t carried = 0;       ///< N
  size_t scan_outputs = 0;  ///< K: stacked over the iterations, the iteration first
  bool has_trip_count = false;
  bool has_condition = false;
  int64_t trip_count = 0;  ///< M, when given (its value is known at compile time)
  /// Types of the body's formal inputs: int64 iteration, bool condition, the carried values.
  std::vector<graph::TensorType> formal_types;
};

/// Scan(states[N], scan inputs[M], captures...) -> (final states[N], scan outputs[K]); its
/// body takes (states[N], one slice of each scan input[M]) and gives (states[N], slices[K]).
/// Opset 8 takes an optional sequence_lens first and runs the scan once per entry of every
/// input's axis 0 (the batch): the body sees one entry, the axes count without it.
struct ScanSignature {
  const graph::Graph* body = nullptr;
  /// The node's input of the first state (1 in opset 8, after sequence_lens).
  size_t first_input = 0;
  /// Opset 8: the batch (the inputs' and outputs' axis 0); 0 from opset 9 on.
  int64_t batch = 0;
  size_t states = 0, scan_inputs = 0, scan_outputs = 0;
  /// Per scan input and per scan output: the axis that is scanned (non-negative) and
  /// whether it is walked from its end.
  std::vector<int> input_axes;
  std::vector<bool> input_reverse, output_reverse;
  /// As given: their rank is the body's slice rank plus one (scan_output_axis).
  std::vector<int64_t> output_axes;
  /// Iterations: the scan inputs' common extent along their axes.
  int64_t length = 0;
  /// Types of the body's formal inputs: the states, then one slice of each scan input (one
  /// batch entry's, in opset 8).
  std::vector<graph::TensorType> formal_types;
};

IfSignature if_signature(const OpContext& ctx);
LoopSignature loop_signature(const OpContext& ctx);
ScanSignature scan_signature(const OpContext& ctx);

/// Scan output j's axis made non-negative for an output of `rank`.
int scan_output_axis(const OpContext& ctx, const ScanSignature& sig, size_t j, int rank);

/// Index of the node's first captured input (the node's inputs after its own).
size_t first_captured_input(const OpContext& ctx, const graph::Graph& body);

/// The output types of `body` given its formal input types (through ctx's BodyTyper, with
/// the captured values' types and known values from the node's last inputs).
std::vector<graph::TensorType> body_output_types(const OpContext& ctx, const graph::Graph& body,
                                                 const std::vector<graph::TensorType>& formal);

}  // namespace tessel::ops::control

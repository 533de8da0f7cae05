// Compiling one graph node into a kernel, and running one node on host arrays.
//
// compile_node is the single path from an operator call to native code: look the operator
// up in the registry, infer its output types, build its tensor-expression compute over one
// placeholder per input, apply its default schedule and JIT-compile (driver::build).
// The kernel's arguments are the node's present inputs, then its outputs, in order.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "driver/build.h"
#include "graph/graph.h"
#include "ops/op_def.h"
#include "runtime/ndarray.h"

namespace tessel::executor {

/// A node compiled for fixed input types.
struct NodeKernel {
  /// Types of the node's outputs (one per output slot; omitted outputs included).
  std::vector<graph::TensorType> output_types;
  /// The compiled kernel; empty for folded (metadata) operators and for nodes whose outputs
  /// are all empty tensors.
  std::shared_ptr<driver::Kernel> kernel;
  /// For folded operators: the outputs, computed at compile time.
  std::vector<std::shared_ptr<const runtime::NDArray>> folded;
  /// For data-dependent operators: the step the runtime runs (no kernel).
  std::optional<ops::DataDependentStep> data_dependent;
  /// Positions of the node's inputs that the kernel takes as arguments (present inputs).
  std::vector<size_t> kernel_inputs;
  /// Positions of the node's outputs that the kernel writes.
  std::vector<size_t> kernel_outputs;
};

/// The domain of tessel's internal operators (e.g. MatMulAdd, made by graph rewrites); the
/// registry holds them beside the ONNX ones.
inline constexpr const char* kTesselDomain = "tessel";

/// The node's operator (domain, type, opset) and attributes, exactly (floats to the bit,
/// tensor attributes with their data): nodes with equal signatures and equal input types
/// compile to the same kernel.
std::string node_signature(const graph::Node& node);

/// The registry entry for `node`; CompileError naming the node, its operator and opset when
/// the operator (or that opset version of it) is not supported.
const ops::OpDef& find_op(const graph::Node& node);

/// The types of `node`'s outputs (one per output slot the operator defines) for inputs of
/// `input_types`; `input_values[i]` is the value of input i when known (it must be for the
/// operator's value_inputs). Nodes with bodies (If, Loop, Scan) need `body_typer`.
/// CompileError naming the node when it cannot be inferred.
std::vector<graph::TensorType> infer_node(const graph::Node& node,
                                          const std::vector<graph::TensorType>& input_types,
                                          const std::vector<const runtime::NDArray*>& input_values,
                                          const ops::BodyTyper* body_typer = nullptr);

/// Compiles `node` for inputs of `input_types`; `input_values[i]` is the value of input i
/// when known at compile time (it must be for the operator's value_inputs), else nullptr.
NodeKernel compile_node(const graph::Node& node, const std::vector<graph::TensorType>& input_types,
                        const std::vector<const runtime::NDArray*>& input_values,
                        const driver::BuildOptions& options = {});

/// `node`'s context (its operator `def`) with its inputs' graph types and the constants
/// they hold.
ops::OpContext context_of_graph_values(const graph::Node& node, const ops::OpDef& def);

/// The runtime step of `node` when its output extents depend on values known only at run
/// time (ops::OpDef::data_dependent, read with the constants its inputs have), else nothing.
std::optional<ops::DataDependentStep> data_dependent_step(const graph::Node& node);

/// The element offset of each output of `node` in its input 0 when every output is a
/// contiguous window of it (ops::OpDef::windows, read with the constants its inputs have;
/// nothing when a value input is not constant or a type is not static).
std::optional<std::vector<int64_t>> output_windows(const graph::Node& node);

/// Runs a compiled data-dependent node on `inputs` through the runtime's implementation;
/// returns its outputs at their actual shapes.
std::vector<runtime::NDArray> run_data_dependent(
    const graph::Node& node, const NodeKernel& compiled,
    const std::vector<const runtime::NDArray*>& inputs);

/// Runs a compiled node on `inputs` (nullptr for an omitted optional input); returns one
/// array per node output slot.
std::vector<runtime::NDArray> run_compiled(const graph::Node& node, const NodeKernel& compiled,
                                           const std::vector<const runtime::NDArray*>& inputs);

/// Compiles and runs `node` on `inputs` (nullptr for an omitted optional input); every
/// input's value is available to the operator at compile time. Returns one array per output
/// slot. For tests and constant folding.
std::vector<runtime::NDArray> run_node(const graph::Node& node,
                                       const std::vector<const runtime::NDArray*>& inputs);

}  // namespace tessel::executor

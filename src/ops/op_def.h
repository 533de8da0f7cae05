// OpDef: everything tessel knows about one graph operator, in one record.
//
// Per operator: its name, the oldest opset it supports, its attribute schema with defaults,
// type and shape inference, its fusion pattern kind, its tensor-expression compute and its
// default CPU schedule. The executor uses nothing else to compile a node; graph passes
// (fusion) read the pattern kind.
//
// A few operators are pure metadata (Constant, Shape, Size): they have `fold` instead of a
// compute, evaluated on the host from attributes and input *types* alone.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "ops/op_context.h"
#include "runtime/model_plan.h"
#include "schedule/schedule.h"
#include "schedules/knobs.h"
#include "te/operation.h"

namespace tessel::ops {

/// How an operator's outputs depend on its inputs, for fusion (TVM's classification).
enum class PatternKind {
  Elementwise,  ///< out[i] = f(in[i]) for inputs of the output's shape
  Broadcast,    ///< elementwise after numpy broadcasting
  Injective,    ///< each output element reads input elements at computed positions
  Reduction,    ///< reduces over some axes
  OutFusable,   ///< complex op whose output can take an elementwise epilogue (conv, matmul)
  Opaque,       ///< anything else: never fused
};
const char* pattern_name(PatternKind kind);

/// One attribute of an operator's schema. Without a default the attribute is optional
/// (`OpContext::has_attr` tells) unless `required`.
struct AttrSpec {
  std::string name;
  graph::AttrKind kind;
  std::optional<graph::Attribute> default_value;
  bool required = false;
};

/// Output types of a node, from its inputs' types (and constant values where needed).
using InferFn = std::function<std::vector<graph::TensorType>(const OpContext&)>;
/// The node's outputs as tensor expressions over `inputs` (one placeholder per node input;
/// an undefined Tensor for an omitted optional input). Returns one tensor per node output
/// (trailing optional outputs may be left out).
using ComputeFn =
    std::function<std::vector<te::Tensor>(const OpContext&, const std::vector<te::Tensor>&)>;
/// Applies the operator's default CPU schedule to `schedule` (built over `outputs`).
using ScheduleFn = std::function<void(const OpContext&, schedule::Schedule& schedule,
                                      const std::vector<te::Tensor>& outputs)>;
/// The knobs a node's schedule reads through OpContext::knob, with their candidate values.
using TuningSpaceFn = std::function<schedules::TuningSpace(const OpContext&)>;
/// Host evaluation of metadata operators (from attributes and input types).
using FoldFn = std::function<std::vector<runtime::NDArray>(const OpContext&)>;

/// How the runtime runs an operator whose output extents depend on input values: its step
/// kind and parameters (runtime/data_dependent.h).
struct DataDependentStep {
  runtime::StepKind kind = runtime::StepKind::NonZero;
  std::vector<int64_t> params;
  std::vector<std::string> strings = {};
};
/// The step of a node, or nothing where the values known at compile time fix its output
/// extents (Compress of a constant condition) and its `compute` runs it.
using DataDependentFn = std::function<std::optional<DataDependentStep>(const OpContext&)>;
/// Where every output of a node is a contiguous run of its input 0's elements in row-major
/// order (a Slice or Split that cuts the outermost axis of extent above 1), the element
/// offset of each output in input 0; nothing otherwise.
using WindowsFn = std::function<std::optional<std::vector<int64_t>>(const OpContext&)>;

struct OpDef {
  std::string name;
  /// "" for ONNX's default domain; "tessel" for the operators only graph passes create.
  std::string domain;
  /// Oldest opset version of the ONNX domain supported (the newest is 17).
  int since_version = 1;
  std::vector<AttrSpec> attributes;
  PatternKind pattern = PatternKind::Opaque;
  /// Inputs whose *values* type inference or the compute needs at compile time (Reshape's
  /// shape, Slice's starts, ...). The executor makes them constants before compiling, by
  /// folding or by specialising on the values given at run time.
  std::vector<int> value_inputs;
  InferFn infer;
  /// Empty for the operators that graph rewrites always replace (the recurrent cells): they
  /// have types but no kernel of their own.
  ComputeFn compute;
  /// Optional; without it the generic schedule for the pattern kind applies.
  ScheduleFn schedule;
  /// Optional: the tuning template of `schedule` (its knobs) for a node.
  TuningSpaceFn tuning_space;
  /// Set instead of `compute` for metadata operators.
  FoldFn fold;
  /// Set for operators whose output extents may depend on input values: the runtime runs
  /// a node as a step of its own where this gives one (always for NonZero, Unique and
  /// NonMaxSuppression, which have no `compute`), and its inferred types are then its
  /// largest outputs.
  DataDependentFn data_dependent;
  /// Optional: where the outputs are windows of input 0, so that the memory planner may
  /// place them inside its buffer and run no kernel (compiler/buffer_views.h).
  WindowsFn windows;
};

}  // namespace tessel::ops

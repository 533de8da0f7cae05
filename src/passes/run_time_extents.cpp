// The operators that carry a run-time extent through compiled kernels, and along which axis
// (run_time_extents.h).
#include "passes/run_time_extents.h"

#include <algorithm>
#include <optional>
#include <set>

#include "executor/node_kernel.h"
#include "ops/op_context.h"
#include "ops/registry.h"
#include "runtime/data_dependent.h"
#include "support/error.h"

namespace tessel::passes {
namespace {

int normalized(int64_t axis, int rank) {
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

std::string axis_text(int axis) {
  return "axis " + std::to_string(axis);
}

/// What a node is, for the rules: its inputs' types, values and extents.
struct NodeView {
  const graph::Node& node;
  const ops::OpContext& ctx;
  const std::vector<graph::TensorType>& types;
  const std::vector<const runtime::NDArray*>& values;
  const std::vector<RunTimeExtent>& extents;

  bool present(size_t i) const { return i < node.inputs.size() && node.inputs[i]; }
  bool carries(size_t i) const { return present(i) && extents[i].axis >= 0; }
  int rank(size_t i) const { return types[i].rank(); }
  int64_t extent(size_t i, int axis) const { return types[i].dims[axis].value; }
};

/// A rule's verdict: the output axis carrying the extent (all outputs), or a problem.
struct Carried {
  int axis = -1;
  std::string problem;
  int problem_input = -1;
};

Carried keep(int axis) {
  return {axis, "", -1};
}

Carried refuse(std::string problem, int input = -1) {
  return {-1, std::move(problem), input};
}

/// Element-wise and broadcasting operators: the extent moves to the aligned output axis;
/// every other operand spanning that axis must carry the same extent or have extent 1 there.
Carried broadcast_rule(const NodeView& v, size_t first, int out_rank) {
  int out_axis = v.extents[first].axis + out_rank - v.rank(first);
  for (size_t i = 0; i < v.node.inputs.size(); ++i) {
    if (!v.present(i)) continue;
    int aligned = out_axis - (out_rank - v.rank(i));
    if (v.carries(i)) {
      if (v.extents[i].axis != aligned)
        return refuse("it pairs the extents the run finds along different axes", int(i));
    } else if (aligned >= 0 && v.extent(i, aligned) != 1) {
      return refuse("its operand '" + v.node.inputs[i]->name + "' spans the " +
                        axis_text(out_axis) + " of the result with the fixed extent " +
                        std::to_string(v.extent(i, aligned)),
                    int(i));
    }
  }
  return keep(out_axis);
}

/// Reshapes that keep the axis whole: the dimensions before it and after it may regroup,
/// the axis itself stays one dimension of the same extent.
Carried reshape_rule(const NodeView& v, const graph::TensorType& out) {
  int d = v.extents[0].axis;
  const graph::TensorType& in = v.types[0];
  int64_t before = 1, after = 1;
  for (int k = 0; k < d; ++k) before *= in.dims[k].value;
  for (int k = d + 1; k < in.rank(); ++k) after *= in.dims[k].value;
  int64_t prefix = 1;
  for (int j = 0; j < out.rank(); ++j) {
    int64_t suffix = 1;
    for (int k = j + 1; k < out.rank(); ++k) suffix *= out.dims[k].value;
    if (prefix == before && out.dims[j].value == in.dims[d].value && suffix == after)
      return keep(j);
    prefix *= out.dims[j].value;
  }
  return refuse("it merges " + axis_text(d) + " with other dimensions", 0);
}

/// The axes a Reduce*, ArgMax or ArgMin node reduces (every axis when none are given and
/// the node is no copy), and whether it keeps them.
std::optional<std::vector<int>> reduced_axes(const NodeView& v, bool& keepdims) {
  int rank = v.rank(0);
  keepdims = v.ctx.attr_int("keepdims") != 0;
  std::vector<int64_t> axes;
  if (v.node.op_type == "ArgMax" || v.node.op_type == "ArgMin") {
    axes = {v.ctx.attr_int("axis")};
  } else if (v.ctx.has_attr("axes")) {
    axes = v.ctx.attr_ints("axes");
  } else if (v.present(1)) {
    if (!v.values[1]) return std::nullopt;
    axes = v.ctx.input_ints(1);
  }
  std::vector<int> result;
  bool noop = v.ctx.has_attr("noop_with_empty_axes") && v.ctx.attr_int("noop_with_empty_axes");
  if (axes.empty() && !noop)
    for (int k = 0; k < rank; ++k) result.push_back(k);
  for (int64_t a : axes) result.push_back(normalized(a, rank));
  return result;
}

/// Whether input 0 of the node is tessel.MaskPadding along `axis` with the padding filled
/// by the identity of the node's reduction (mask_run_time_padding.h).
bool padding_masked(const NodeView& v, int axis) {
  const graph::Value* in = v.node.inputs[0];
  const graph::Node* mask = in ? in->producer : nullptr;
  if (!mask || mask->op_type != "MaskPadding" || mask->domain != "tessel") return false;
  const graph::Attribute* mask_axis = mask->attribute("axis");
  const graph::Attribute* fill = mask->attribute("fill");
  return mask_axis && fill && normalized(mask_axis->i, v.rank(0)) == axis &&
         fill->s == padding_fill(v.node.op_type);
}

Carried reduction_rule(const NodeView& v) {
  int d = v.extents[0].axis;
  bool keepdims = true;
  std::optional<std::vector<int>> axes = reduced_axes(v, keepdims);
  if (!axes) return refuse("its axes are known only at run time", 1);
  if (std::count(axes->begin(), axes->end(), d)) {
    if (padding_masked(v, d)) return keep(-1);  // the result carries no extent
    return refuse("it reduces over " + axis_text(d), 0);
  }
  if (keepdims) return keep(d);
  return keep(d - static_cast<int>(
                      std::count_if(axes->begin(), axes->end(), [&](int a) { return a < d; })));
}

/// An operator working along `axis` (softmax, concat, split, cumsum): the extent stays
/// where it is as long as it lies on another axis.
Carried along_axis_rule(const NodeView& v, int64_t axis, bool through_the_end) {
  int d = v.extents[0].axis;
  int a = normalized(axis, v.rank(0));
  if (a == d || (through_the_end && d >= a))
    return refuse("it works along " + axis_text(d) + ", which the run sets", 0);
  return keep(d);
}

Carried gather_rule(const NodeView& v) {
  int axis = normalized(v.ctx.attr_int("axis"), v.rank(0));
  if (v.carries(1)) {
    if (v.carries(0)) return refuse("it gathers from a value whose extent the run finds", 0);
    if (v.extent(0, axis) == 0) return refuse("it gathers from an empty axis", 0);
    return keep(axis + v.extents[1].axis);
  }
  int d = v.extents[0].axis;
  if (d == axis) return refuse("it gathers along " + axis_text(d) + ", which the run sets", 0);
  return keep(d < axis ? d : d + v.rank(1) - 1);
}

Carried gather_nd_rule(const NodeView& v) {
  if (v.carries(0)) return refuse("it gathers from a value whose extent the run finds", 0);
  int j = v.extents[1].axis;
  if (v.ctx.attr_int("batch_dims") != 0) return refuse("its batch_dims is not 0", 1);
  if (j == v.rank(1) - 1) return refuse("the run sets the length of its index tuples", 1);
  for (int k = 0; k < v.rank(0); ++k)
    if (v.extent(0, k) == 0) return refuse("it gathers from an empty axis", 0);
  return keep(j);
}

Carried slice_rule(const NodeView& v) {
  int d = v.extents[0].axis;
  for (size_t i = 1; i < v.node.inputs.size(); ++i)
    if (v.present(i) && !v.values[i])
      return refuse("its bounds are known only at run time", int(i));
  size_t count = v.ctx.input_ints(1).size();
  std::vector<int64_t> axes;
  if (v.present(3)) axes = v.ctx.input_ints(3);
  for (size_t k = 0; k < count; ++k)
    if (normalized(axes.empty() ? static_cast<int64_t>(k) : axes[k], v.rank(0)) == d)
      return refuse("it slices " + axis_text(d) + ", which the run sets", 0);
  return keep(d);
}

/// MatMul and MatMulAdd: the left operand's rows or batch axes carry the extent.
Carried product_rule(const NodeView& v, int out_rank) {
  if (v.carries(1)) return refuse("its right operand carries an extent the run finds", 1);
  int d = v.extents[0].axis, rank = v.rank(0);
  if (d == rank - 1) return refuse("it contracts " + axis_text(d) + ", which the run sets", 0);
  int out_axis = d + out_rank - rank;
  if (d < rank - 2) {  // a batch axis: the right operand's must broadcast
    int aligned = out_axis - (out_rank - v.rank(1));
    if (aligned >= 0 && aligned < v.rank(1) - 2 && v.extent(1, aligned) != 1)
      return refuse(
          "its right operand spans the batch " + axis_text(out_axis) + " with a fixed extent", 1);
  }
  if (v.present(2) && !v.carries(2)) {  // MatMulAdd's addend
    int aligned = out_axis - (out_rank - v.rank(2));
    if (aligned >= 0 && v.extent(2, aligned) != 1)
      return refuse("its addend spans " + axis_text(out_axis) + " with a fixed extent", 2);
  }
  return keep(out_axis);
}

Carried gemm_rule(const NodeView& v) {
  if (v.carries(1) || v.carries(2)) return refuse("an operand other than A carries an extent", 1);
  if (v.extents[0].axis != 0 || v.ctx.attr_int("transA") != 0)
    return refuse("the run sets the extent A contracts", 0);
  if (v.present(2) && v.rank(2) == 2 && v.extent(2, 0) != 1)
    return refuse("C spans the rows with a fixed extent", 2);
  return keep(0);
}

/// Operators computing each slice along axis 0 from input 0's slice alone: the other
/// inputs must be known at compile time (weights, pads, scales).
Carried leading_slice_rule(const NodeView& v) {
  if (v.extents[0].axis != 0) return refuse("the run sets its " + axis_text(v.extents[0].axis), 0);
  for (size_t i = 1; i < v.node.inputs.size(); ++i)
    if (v.present(i) && !v.values[i])
      return refuse("its input '" + v.node.inputs[i]->name + "' is no constant", int(i));
  return keep(0);
}

Carried kernel_rule(const NodeView& v, const ops::OpDef& def,
                    const std::vector<graph::TensorType>& output_types) {
  const std::string& op = v.node.op_type;
  size_t first = 0;
  while (!v.carries(first)) ++first;
  int out_rank = output_types.empty() ? 0 : output_types[0].rank();
  if ((op == "Div" || op == "Mod") && v.carries(1) && !v.types[1].dtype.is_float())
    return refuse("it divides integers by the padding's zeros", 1);
  if (def.pattern == ops::PatternKind::Elementwise || def.pattern == ops::PatternKind::Broadcast ||
      op == "Expand" || op == "Where")
    return broadcast_rule(v, first, out_rank);
  if (first != 0 && op != "Gather" && op != "GatherND" && op != "Concat")
    return refuse("an input other than the first carries an extent the run finds", int(first));
  if (op == "Transpose") {
    std::vector<int64_t> perm =
        v.ctx.has_attr("perm") ? v.ctx.attr_ints("perm") : std::vector<int64_t>{};
    if (perm.empty())
      for (int k = v.rank(0) - 1; k >= 0; --k) perm.push_back(k);
    return keep(
        static_cast<int>(std::find(perm.begin(), perm.end(), v.extents[0].axis) - perm.begin()));
  }
  if (op == "Reshape" || op == "Squeeze" || op == "Unsqueeze" || op == "Flatten")
    return reshape_rule(v, output_types[0]);
  if (op == "Gather") return gather_rule(v);
  if (op == "GatherND") return gather_nd_rule(v);
  if (op.rfind("Reduce", 0) == 0 || op == "ArgMax" || op == "ArgMin") return reduction_rule(v);
  if (op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") {
    bool coerced = v.node.opset < 13;
    int64_t axis = v.ctx.has_attr("axis") ? v.ctx.attr_int("axis") : coerced ? 1 : -1;
    Carried along = along_axis_rule(v, axis, coerced);
    return along.problem.empty() || !padding_masked(v, v.extents[0].axis) ? along
                                                                          : keep(v.extents[0].axis);
  }
  if (op == "LayerNormalization") return along_axis_rule(v, v.ctx.attr_int("axis"), true);
  if (op == "Split") return along_axis_rule(v, v.ctx.attr_int("axis"), false);
  if (op == "TopK" && v.values[1]) return along_axis_rule(v, v.ctx.attr_int("axis"), false);
  if (op == "CumSum") {
    if (!v.values[1]) return refuse("its axis is known only at run time", 1);
    return along_axis_rule(v, v.ctx.input_ints(1).at(0), false);
  }
  if (op == "Concat") {
    for (size_t i = 0; i < v.node.inputs.size(); ++i) {
      if (!v.present(i)) continue;
      if (!v.carries(i))
        return refuse("it joins '" + v.node.inputs[i]->name +
                          "', which has a fixed extent, to a value whose extent the run finds",
                      int(i));
      if (v.extents[i].axis != v.extents[0].axis)
        return refuse("it joins values whose extents the run sets along different axes", int(i));
    }
    return along_axis_rule(v, v.ctx.attr_int("axis"), false);
  }
  if (op == "Slice") return slice_rule(v);
  if (op == "MatMul" || op == "MatMulAdd") return product_rule(v, out_rank);
  if (op == "Gemm") return gemm_rule(v);
  if (slices_leading_axis_alone(op)) return leading_slice_rule(v);
  return refuse("operator '" + op + "' is not known to keep the positions past the extent apart",
                int(first));
}

/// A data-dependent step reading a value whose extent the run finds reads it at that
/// extent; fine where no extent of its input survives into an output beside the one the
/// step sets.
std::string step_problem(const NodeView& v, const ops::DataDependentStep& step) {
  switch (step.kind) {
    case runtime::StepKind::NonZero:
    case runtime::StepKind::ExtentOf:
      return "";
    case runtime::StepKind::Unique:
    case runtime::StepKind::Compress:
      if (v.carries(0) && step.params.at(0) >= 0 &&
          normalized(step.params[0], v.rank(0)) != v.extents[0].axis)
        return "the run sets " + axis_text(v.extents[0].axis) +
               " of its input, and it selects along another";
      return "";
    default:
      return "a " + std::string(runtime::step_kind_name(step.kind)) +
             " step reads values of the shapes compiled for it";
  }
}

}  // namespace

std::string padding_fill(const std::string& op_type) {
  static const std::map<std::string, std::string> fills = {
      {"ReduceSum", "sum"},   {"ReduceSumSquare", "sum"}, {"ReduceL1", "sum"},
      {"ReduceL2", "sum"},    {"ReduceMean", "sum"},      {"ReduceLogSum", "sum"},
      {"ReduceProd", "prod"}, {"ReduceMax", "max"},       {"ReduceLogSumExp", "max"},
      {"ReduceMin", "min"},   {"Softmax", "max"},         {"LogSoftmax", "max"}};
  auto found = fills.find(op_type);
  return found == fills.end() ? "" : found->second;
}

bool slices_leading_axis_alone(const std::string& op_type) {
  static const std::set<std::string> ops = {"Conv",
                                            "ConvInteger",
                                            "ConvTranspose",
                                            "QLinearConv",
                                            "Conv2dNCHWc",
                                            "AveragePool",
                                            "LpPool",
                                            "GlobalAveragePool",
                                            "GlobalLpPool",
                                            "GlobalMaxPool",
                                            "InstanceNormalization",
                                            "LRN",
                                            "DepthToSpace",
                                            "SpaceToDepth",
                                            "GridSample",
                                            "Reshape",
                                            "Flatten",
                                            "Squeeze",
                                            "Unsqueeze",
                                            "Identity",
                                            "Dropout",
                                            "LayoutToNCHWc",
                                            "LayoutFromNCHWc",
                                            "OneHot",
                                            "Expand",
                                            "Pad",
                                            "Resize",
                                            "Upsample",
                                            "Tile"};
  return ops.count(op_type) > 0;
}

ExtentFlow flow_run_time_extents(const graph::Node& node,
                                 const std::vector<graph::TensorType>& input_types,
                                 const std::vector<const runtime::NDArray*>& input_values,
                                 const std::vector<graph::TensorType>& output_types,
                                 const std::vector<RunTimeExtent>& input_extents) {
  ExtentFlow flow;
  flow.outputs.resize(node.outputs.size());
  const ops::OpDef& def = executor::find_op(node);
  ops::OpContext ctx(node, def, input_types, input_values);
  NodeView view{node, ctx, input_types, input_values, input_extents};
  int first = -1;
  for (size_t i = 0; i < node.inputs.size() && first < 0; ++i)
    if (view.carries(i)) first = static_cast<int>(i);
  if (def.data_dependent && !node.has_body()) {
    if (std::optional<ops::DataDependentStep> step = def.data_dependent(ctx)) {
      if (first >= 0) {
        flow.problem = step_problem(view, *step);
        flow.problem_input = first;
        if (!flow.problem.empty()) return flow;
      }
      std::vector<runtime::DType> dtypes;
      std::vector<std::vector<int64_t>> shapes;
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        if (!view.present(i)) continue;
        dtypes.push_back(graph::to_runtime_dtype(input_types[i].dtype));
        shapes.push_back(input_types[i].shape());
      }
      runtime::DataDependentOutputs outputs =
          runtime::data_dependent_outputs(step->kind, step->params, dtypes, shapes);
      for (size_t k = 0; k < flow.outputs.size() && k < outputs.dynamic_dims.size(); ++k)
        flow.outputs[k].axis = outputs.dynamic_dims[k];
      return flow;
    }
  }
  if (first < 0) return flow;
  if (node.has_body()) {
    flow.problem = "If, Loop and Scan carry values of fixed shapes";
    flow.problem_input = first;
    return flow;
  }
  if (node.op_type == "Shape" || node.op_type == "Size") {
    flow.problem = "its value depends on the extent only the run knows";
    flow.problem_input = first;
    return flow;
  }
  Carried carried = kernel_rule(view, def, output_types);
  for (size_t i = 0; carried.problem.empty() && i < node.inputs.size(); ++i)
    if (view.carries(i) && input_extents[i].source != input_extents[first].source)
      carried = refuse("it pairs two extents the run finds separately", static_cast<int>(i));
  int64_t capacity = view.extent(first, input_extents[first].axis);
  for (size_t k = 0; carried.problem.empty() && carried.axis >= 0 && k < node.outputs.size(); ++k) {
    if (!node.outputs[k]) continue;
    if (carried.axis >= output_types[k].rank() ||
        output_types[k].dims[carried.axis].value != capacity)
      carried = refuse("its output '" + node.outputs[k]->name + "' does not keep the extent " +
                           std::to_string(capacity) + " along " + axis_text(carried.axis),
                       first);
    else
      flow.outputs[k] = {carried.axis, first};
  }
  if (!carried.problem.empty()) {
    flow.outputs.assign(node.outputs.size(), {});
    flow.problem = carried.problem;
    // The error names a value whose extent the run finds; the problem names the other.
    bool names_one = carried.problem_input >= 0 && view.carries(size_t(carried.problem_input));
    flow.problem_input = names_one ? carried.problem_input : first;
  }
  return flow;
}

bool any_run_time(const std::vector<RunTimeExtent>& extents) {
  return std::any_of(extents.begin(), extents.end(),
                     [](const RunTimeExtent& e) { return e.axis >= 0; });
}

void record_outputs(RunTimeExtents& known, const graph::Node& node, const ExtentFlow& flow,
                    const std::vector<RunTimeExtent>& inputs) {
  for (size_t k = 0; k < node.outputs.size() && k < flow.outputs.size(); ++k) {
    const ExtentFlow::Output& out = flow.outputs[k];
    if (out.axis < 0 || !node.outputs[k]) continue;
    known[node.outputs[k]] = {out.axis, out.from_input >= 0
                                            ? inputs[static_cast<size_t>(out.from_input)].source
                                            : node.outputs[k]};
  }
}

RunTimeExtents find_run_time_extents(const graph::Graph& graph) {
  RunTimeExtents found;
  for (const auto& node : graph.nodes()) {
    std::vector<RunTimeExtent> extents = extents_of(found, node->inputs);
    if (!any_run_time(extents) && !executor::find_op(*node).data_dependent) continue;
    std::vector<graph::TensorType> types, output_types;
    std::vector<const runtime::NDArray*> values;
    for (const graph::Value* in : node->inputs) {
      types.push_back(in ? in->type : graph::TensorType{});
      values.push_back(in ? in->constant.get() : nullptr);
    }
    for (const graph::Value* out : node->outputs)
      output_types.push_back(out ? out->type : graph::TensorType{});
    ExtentFlow flow = flow_run_time_extents(*node, types, values, output_types, extents);
    if (!flow.problem.empty()) {
      const RunTimeExtent& read = extents.at(static_cast<size_t>(flow.problem_input));
      const graph::Value* value = node->inputs[static_cast<size_t>(flow.problem_input)];
      TESSEL_USER_ERROR(node->describe(), " reads '", value->name, "', whose extent along ",
                        axis_text(read.axis), " ", read.source->producer->describe(),
                        " finds at run time: ", flow.problem,
                        "; tessel compiles its kernels for the largest extent, so it runs "
                        "only operators that keep the positions past the run's extent apart");
    }
    record_outputs(found, *node, flow, extents);
  }
  return found;
}

}  // namespace tessel::passes

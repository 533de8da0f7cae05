// The operators that run sample by sample, and on what conditions (batch_rules.h).
#include "compiler/batch_rules.h"

#include <algorithm>
#include <set>

#include "ops/op_context.h"
#include "ops/registry.h"
#include "passes/run_time_extents.h"

namespace tessel::compiler {
namespace {

/// Operators that change extents along their axes: they must keep the leading one.
const std::set<std::string>& keep_leading_extent_ops() {
  static const std::set<std::string> ops = {"Expand", "Pad", "Resize", "Upsample", "Tile"};
  return ops;
}

int64_t normalized(int64_t axis, int rank) {
  return axis < 0 ? axis + rank : axis;
}

bool has_axis_zero(const std::vector<int64_t>& axes, int rank) {
  return std::any_of(axes.begin(), axes.end(), [&](int64_t a) { return normalized(a, rank) == 0; });
}

std::string batch_axis_problem(const std::string& what) {
  return what + " is the batch's (axis 0): the samples would mix";
}

/// The rule of a product A x B (MatMul and its relatives): a batched left operand against
/// an unbatched right one, or operands batched together in a batch of matrices.
std::string product_problem(const graph::Node& node, const std::vector<bool>& batched) {
  bool a = batched[0], b = batched.size() > 1 && batched[1];
  int rank_a = node.inputs[0]->type.rank(), rank_b = node.inputs[1]->type.rank();
  if (a && b && (rank_a < 3 || rank_b < 3))
    return "both operands are batched and one is a matrix: the product would pair samples";
  if (!a && b && rank_b < 3)
    return "the right operand is a batched matrix: the product would sum over the samples";
  return "";
}

std::string axis_rule(const graph::Node& node, const ops::OpContext& ctx,
                      const std::vector<bool>& batched) {
  const std::string& op = node.op_type;
  int rank = node.inputs[0] ? node.inputs[0]->type.rank() : 0;
  // The node's axis, or its schema's default.
  auto axis_attr = [&] { return normalized(ctx.attr_int("axis"), rank); };
  if (op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") {
    int64_t axis = normalized(ctx.has_attr("axis") ? ctx.attr_int("axis")
                              : node.opset < 13    ? 1
                                                   : -1,
                              rank);
    return axis == 0 ? batch_axis_problem("its axis") : "";
  }
  if (op == "LayerNormalization" || op == "LpNormalization" || op == "ArgMax" || op == "ArgMin" ||
      op == "TopK" || op == "Concat" || op == "Split" || op == "GatherElements" ||
      op == "Compress") {
    if (op == "GatherElements" && !(batched[0] && batched[1]))
      return "its data and indices must both be batched";
    if (op == "Compress" && !ctx.has_attr("axis")) return "without an axis it flattens the batch";
    if (op == "Compress" && batched.size() > 1 && batched[1]) return "its condition is batched";
    return axis_attr() == 0 ? batch_axis_problem("its axis") : "";
  }
  if (op == "Gather") {
    // Unbatched data indexed by batched indices (an embedding) gathers per sample.
    if (!batched[0]) return "";
    return axis_attr() == 0 ? batch_axis_problem("its axis") : "";
  }
  if (op == "CumSum") {
    std::vector<int64_t> axis = ctx.input_ints(1);
    return has_axis_zero(axis, rank) ? batch_axis_problem("its axis") : "";
  }
  if (op.rfind("Reduce", 0) == 0 || op == "MeanVarianceNormalization") {
    std::vector<int64_t> axes;
    if (ctx.has_attr("axes") || op == "MeanVarianceNormalization")
      axes = ctx.attr_ints("axes");
    else if (ctx.has_input(1))
      axes = ctx.input_ints(1);
    bool noop = ctx.has_attr("noop_with_empty_axes") && ctx.attr_int("noop_with_empty_axes") != 0;
    if (axes.empty() && !noop) return "it reduces over every axis, the batch's too";
    return has_axis_zero(axes, rank) ? batch_axis_problem("one of its axes") : "";
  }
  if (op == "Transpose") {
    std::vector<int64_t> perm =
        ctx.has_attr("perm") ? ctx.attr_ints("perm") : std::vector<int64_t>{};
    bool keeps = perm.empty() ? rank <= 1 : perm[0] == 0;
    return keeps ? "" : "it moves the batch axis away from the front";
  }
  if (op == "Slice") {
    std::vector<int64_t> starts = ctx.input_ints(1), ends = ctx.input_ints(2);
    std::vector<int64_t> axes, steps;
    if (ctx.has_input(3)) axes = ctx.input_ints(3);
    if (ctx.has_input(4)) steps = ctx.input_ints(4);
    for (size_t k = 0; k < starts.size(); ++k) {
      int64_t axis = normalized(axes.empty() ? static_cast<int64_t>(k) : axes[k], rank);
      int64_t step = steps.empty() ? 1 : steps[k];
      if (axis == 0 && (starts[k] != 0 || step != 1))
        return "it slices the batch axis (start " + std::to_string(starts[k]) + ", step " +
               std::to_string(step) + ")";
    }
    return "";
  }
  if (op == "GatherND") {
    if (!(batched[0] && batched[1]) || ctx.attr_int("batch_dims") < 1)
      return "its data and indices must both be batched, with batch_dims 1 or more";
    return "";
  }
  if (op == "Trilu") return rank < 3 ? "its matrix holds the batch axis" : "";
  if (op == "ReverseSequence")
    return ctx.attr_int("batch_axis") == 0 && ctx.attr_int("time_axis") != 0
               ? ""
               : "its batch axis must be axis 0";
  if (op == "MaxPool")
    return node.outputs.size() > 1 && node.outputs[1]
               ? "its indices count elements across the whole batch"
               : "";
  if (op == "BatchNormalization")
    return node.outputs.size() > 1 && node.outputs[1]
               ? "in training mode it averages over the batch"
               : "";
  if (op == "MatMul" || op == "MatMulInteger" || op == "MatMulAdd")
    return product_problem(node, batched);
  if (op == "Gemm") {
    if (batched[1]) return "its right operand is batched";
    if (batched[0] && ctx.attr_int("transA") != 0)
      return "its transposed left operand puts the batch in its columns";
    return "";
  }
  return "operator '" + op + "' is not known to compute each sample from that sample alone";
}

}  // namespace

std::string samplewise_problem(const graph::Node& node, const std::vector<bool>& batched) {
  if (node.has_body()) return "control flow does not run sample by sample";
  const ops::OpDef* def = ops::OpRegistry::global().find(node.op_type);
  if (!def) return "operator '" + node.op_type + "' is unknown";
  if (keep_leading_extent_ops().count(node.op_type) && batched[0] &&
      node.outputs[0]->type.dims[0] != node.inputs[0]->type.dims[0])
    return "it changes the extent of the batch axis";
  // Their other operands are weights or batched with the batch leading (the type check of
  // symbolic_batch.h sees to that, and to the leading extents the resampling ones keep).
  if (passes::slices_leading_axis_alone(node.op_type) ||
      def->pattern == ops::PatternKind::Elementwise || def->pattern == ops::PatternKind::Broadcast)
    return "";
  std::vector<graph::TensorType> types;
  std::vector<const runtime::NDArray*> values;
  for (const graph::Value* in : node.inputs) {
    types.push_back(in ? in->type : graph::TensorType{});
    values.push_back(in ? in->constant.get() : nullptr);
  }
  ops::OpContext ctx(node, *def, std::move(types), std::move(values));
  return axis_rule(node, ctx, batched);
}

}  // namespace tessel::compiler

// The ten Reduce* operators from one table of {pre-map, reducer, post-map} and one
// registration function.
//
// Axes come from the `axes` attribute, or from input 1 for ReduceSum from opset 13 on; no
// axes means every axis, unless ReduceSum's noop_with_empty_axes makes the node a copy.
// Integers reduce in their own type except for the float-valued reductions (mean, norms,
// logarithms), which compute in float64 and convert back; 16-bit floats compute in float32.
#include "ops/op_util.h"
#include "ops/reduction/reduction_ops.h"
#include "ops/reduction/reduction_util.h"
#include "schedules/cpu/row_schedule.h"

namespace tessel::ops::reduction {
namespace {

using graph::Attribute;
using graph::AttrKind;
using ir::Expr;

struct ReduceKind {
  const char* name;
  ir::ReduceOp op;
  /// Applied to each element before reducing; nullptr is the identity.
  Expr (*pre)(Expr x);
  /// Applied to the reduced value, given the number of elements reduced; nullptr is the
  /// identity.
  Expr (*post)(Expr r, Expr count);
  /// Whether pre/post need float arithmetic (integer inputs compute in float64).
  bool float_math;
  /// Whether elements are shifted by their group's maximum before `pre` and the maximum
  /// added back after `post` (a numerically stable log-sum-exp).
  bool shift_by_max;
};

constexpr ReduceKind kReduceKinds[] = {
    {"ReduceSum", ir::ReduceOp::Sum, nullptr, nullptr, false, false},
    {"ReduceMean", ir::ReduceOp::Sum, nullptr, [](Expr r, Expr n) { return r / n; }, true, false},
    {"ReduceMax", ir::ReduceOp::Max, nullptr, nullptr, false, false},
    {"ReduceMin", ir::ReduceOp::Min, nullptr, nullptr, false, false},
    {"ReduceProd", ir::ReduceOp::Prod, nullptr, nullptr, false, false},
    {"ReduceL1", ir::ReduceOp::Sum, [](Expr x) { return ir::abs(x); }, nullptr, false, false},
    {"ReduceL2", ir::ReduceOp::Sum, [](Expr x) { return x * x; },
     [](Expr r, Expr) { return ir::sqrt(r); }, true, false},
    {"ReduceLogSum", ir::ReduceOp::Sum, nullptr, [](Expr r, Expr) { return ir::log(r); }, true,
     false},
    {"ReduceLogSumExp", ir::ReduceOp::Sum, [](Expr x) { return ir::exp(x); },
     [](Expr r, Expr) { return ir::log(r); }, true, true},
    {"ReduceSumSquare", ir::ReduceOp::Sum, [](Expr x) { return x * x; }, nullptr, false, false},
};

/// Whether the node takes its axes from input 1 (ReduceSum from opset 13 on).
bool axes_from_input(const ReduceKind& kind, const OpContext& ctx) {
  return std::string(kind.name) == "ReduceSum" && ctx.opset() >= 13;
}

struct ReducePlan {
  std::vector<int64_t> axes;  // sorted; empty for a rank-0 input or a no-op
  bool keepdims = true;
  bool noop = false;
};

ReducePlan reduce_plan(const ReduceKind& kind, const OpContext& ctx) {
  ir::DataType dtype = ctx.input_type(0).dtype;
  if (dtype.is_bool()) ctx.fail("input data must be numeric, found bool");
  int64_t rank = ctx.input_type(0).rank();
  std::vector<int64_t> axes;
  if (axes_from_input(kind, ctx)) {
    if (ctx.has_attr("axes"))
      ctx.fail("attribute 'axes' is not allowed from opset 13 on (axes are input 1)");
    if (ctx.has_input(1)) axes = ctx.input_ints(1);
  } else {
    if (ctx.has_input(1))
      ctx.fail("axes as input 1 are not supported at opset " + std::to_string(ctx.opset()) +
               " (use the 'axes' attribute)");
    if (ctx.has_attr("axes")) axes = ctx.attr_ints("axes");
  }
  ReducePlan plan;
  plan.keepdims = ctx.attr_int("keepdims") != 0;
  if (axes.empty() && axes_from_input(kind, ctx) && ctx.attr_int("noop_with_empty_axes") != 0) {
    plan.noop = true;
    return plan;
  }
  plan.axes = axes.empty() ? trailing_axes(0, rank) : normalize_axes(ctx, axes, rank);
  return plan;
}

std::vector<int64_t> output_shape(const ReducePlan& plan, const std::vector<int64_t>& shape) {
  return plan.noop ? shape : reduced_shape(shape, plan.axes, plan.keepdims);
}

std::vector<te::Tensor> reduce_compute(const ReduceKind& kind, const OpContext& ctx,
                                       const te::Tensor& x) {
  ReducePlan plan = reduce_plan(kind, ctx);
  std::vector<int64_t> shape = ctx.input_shape(0);
  std::vector<int64_t> out_shape = output_shape(plan, shape);
  if (plan.noop)
    return {map_over(
        shape, [&](const auto& p) { return x(p); }, "reduce")};

  ir::DataType dtype = x.dtype();
  ir::DataType acc = dtype.is_float() || kind.float_math ? float_compute_type(dtype) : dtype;
  const std::vector<int64_t>& axes = plan.axes;
  auto load = [&](const std::vector<Expr>& p) { return ir::cast(acc, x(p)); };
  te::Tensor shift;
  if (kind.shift_by_max && !axes.empty())
    shift = reduce_over(shape, axes, true, ir::ReduceOp::Max, load, "reduce.max");
  auto element = [&](const std::vector<Expr>& p) {
    Expr v = shift.defined() ? load(p) - load_reduced(shift, p, axes) : load(p);
    return kind.pre ? kind.pre(v) : v;
  };
  bool direct = !axes.empty() && !kind.post && acc == dtype;
  te::Tensor reduced;
  if (!axes.empty())
    reduced =
        reduce_over(shape, axes, plan.keepdims, kind.op, element, direct ? "reduce" : "reduce.acc");
  if (direct) return {reduced};

  Expr count = ir::make_const(acc, static_cast<double>(reduced_count(shape, axes)));
  auto finish = [&](const std::vector<Expr>& p) {
    // A rank-0 input has nothing to reduce: the group is its one element.
    Expr v = reduced.defined() ? reduced(p) : element(p);
    if (kind.post) v = kind.post(v, count);
    if (shift.defined()) v = v + shift(expand_index(p, axes, plan.keepdims));
    return ir::cast(dtype, v);
  };
  return {map_over(out_shape, finish, "reduce")};
}

OpDef reduce_def(const ReduceKind& kind) {
  OpDef def;
  def.name = kind.name;
  def.since_version = 1;
  def.attributes = {{"axes", AttrKind::Ints, std::nullopt},
                    {"keepdims", AttrKind::Int, Attribute::of_int(1)}};
  if (std::string(kind.name) == "ReduceSum") {
    def.attributes.push_back({"noop_with_empty_axes", AttrKind::Int, Attribute::of_int(0)});
    def.value_inputs = {1};
  }
  def.pattern = PatternKind::Reduction;
  def.infer = [kind](const OpContext& ctx) {
    ReducePlan plan = reduce_plan(kind, ctx);
    return std::vector{
        graph::TensorType::of(ctx.input_type(0).dtype, output_shape(plan, ctx.input_shape(0)))};
  };
  def.compute = [kind](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    return reduce_compute(kind, ctx, in[0]);
  };
  def.schedule = [kind](const OpContext& ctx, schedule::Schedule& s,
                        const std::vector<te::Tensor>& outputs) {
    ReducePlan plan = reduce_plan(kind, ctx);
    int64_t rank = ctx.input_type(0).rank();
    int64_t rows = plan.noop ? 0 : schedules::row_axes_before(plan.axes, rank);
    int64_t work = ctx.input_type(0).num_elements();
    // Over leading axes, the last one kept: columns, accumulated a vector at a time.
    bool columns = rows == 0 && !plan.noop && !plan.axes.empty() && plan.axes.back() < rank - 1;
    if (columns && schedules::schedule_columns(s, work, ctx.target())) return;
    schedules::schedule_rows(s, outputs[0], rows, work, ctx.target());
  };
  return def;
}

}  // namespace

void register_reduce_ops(OpRegistry& registry) {
  for (const ReduceKind& kind : kReduceKinds) registry.add(reduce_def(kind));
}

}  // namespace tessel::ops::reduction

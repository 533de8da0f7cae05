// ArgMax and ArgMin: the position of the extreme element along one axis, in two passes
// (the extreme value, then the first or last position holding it).
#include "ops/op_util.h"
#include "ops/reduction/reduction_ops.h"
#include "ops/reduction/reduction_util.h"
#include "schedules/cpu/row_schedule.h"

namespace tessel::ops::reduction {
namespace {

using graph::Attribute;
using graph::AttrKind;
using ir::Expr;

struct ArgKind {
  const char* name;
  ir::ReduceOp extreme;
};

constexpr ArgKind kArgKinds[] = {{"ArgMax", ir::ReduceOp::Max}, {"ArgMin", ir::ReduceOp::Min}};

struct ArgPlan {
  std::vector<int64_t> axes;  // the one axis reduced
  bool keepdims = true;
  bool last = false;
};

ArgPlan arg_plan(const OpContext& ctx) {
  if (ctx.input_type(0).dtype.is_bool()) ctx.fail("input data must be numeric, found bool");
  int64_t rank = ctx.input_type(0).rank();
  if (rank == 0) ctx.fail("input data must have rank >= 1, found a scalar");
  ArgPlan plan;
  plan.axes = {normalize_axis(ctx, ctx.attr_int("axis"), rank)};
  plan.keepdims = ctx.attr_int("keepdims") != 0;
  plan.last = ctx.attr_int("select_last_index") != 0;
  if (plan.last && ctx.opset() < 12)
    ctx.fail("attribute 'select_last_index' needs opset 12, the model imports opset " +
             std::to_string(ctx.opset()));
  return plan;
}

std::vector<te::Tensor> arg_compute(const ArgKind& kind, const OpContext& ctx,
                                    const te::Tensor& x) {
  ArgPlan plan = arg_plan(ctx);
  std::vector<int64_t> shape = ctx.input_shape(0);
  auto load = [&](const std::vector<Expr>& p) { return x(p); };
  te::Tensor extreme = reduce_over(shape, plan.axes, true, kind.extreme, load, "arg.extreme");
  size_t axis = static_cast<size_t>(plan.axes[0]);
  auto position = [&](const std::vector<Expr>& p) { return p[axis]; };
  auto holds_extreme = [&](const std::vector<Expr>& p) {
    return x(p) == load_reduced(extreme, p, plan.axes);
  };
  return {reduce_over(shape, plan.axes, plan.keepdims,
                      plan.last ? ir::ReduceOp::Max : ir::ReduceOp::Min, position, "arg",
                      holds_extreme)};
}

OpDef arg_def(const ArgKind& kind) {
  OpDef def;
  def.name = kind.name;
  def.since_version = 1;
  def.attributes = {{"axis", AttrKind::Int, Attribute::of_int(0)},
                    {"keepdims", AttrKind::Int, Attribute::of_int(1)},
                    {"select_last_index", AttrKind::Int, Attribute::of_int(0)}};
  def.pattern = PatternKind::Reduction;
  def.infer = [](const OpContext& ctx) {
    ArgPlan plan = arg_plan(ctx);
    return std::vector{graph::TensorType::of(
        ir::DataType::Int(64), reduced_shape(ctx.input_shape(0), plan.axes, plan.keepdims))};
  };
  def.compute = [kind](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    return arg_compute(kind, ctx, in[0]);
  };
  def.schedule = [](const OpContext& ctx, schedule::Schedule& s,
                    const std::vector<te::Tensor>& outputs) {
    int64_t rows = schedules::row_axes_before(arg_plan(ctx).axes, ctx.input_type(0).rank());
    schedules::schedule_rows(s, outputs[0], rows, ctx.input_type(0).num_elements(), ctx.target());
  };
  return def;
}

}  // namespace

void register_arg_reduce_ops(OpRegistry& registry) {
  for (const ArgKind& kind : kArgKinds) registry.add(arg_def(kind));
}

}  // namespace tessel::ops::reduction

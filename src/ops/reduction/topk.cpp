// TopK: the k largest (or smallest) elements along an axis and their positions, sorted,
// ties broken by the lower position.
//
// Without a sort in tensor expressions, selection is a rank computation: the rank of an
// element is the number of elements of its line that come before it in the order (better,
// or equal at a lower position); output position r of a line holds the element of rank r.
// Quadratic in the axis extent. With k known only at run time, the runtime runs it as a
// data-dependent step (runtime/data_dependent.h).
#include "ops/data_dependent_types.h"
#include "ops/op_util.h"
#include "ops/reduction/reduction_ops.h"
#include "ops/reduction/reduction_util.h"

namespace tessel::ops::reduction {
namespace {

using graph::Attribute;
using graph::AttrKind;
using ir::Expr;

struct TopKPlan {
  int64_t axis = 0;
  int64_t k = 0;
  bool largest = true;
};

TopKPlan topk_plan(const OpContext& ctx) {
  if (ctx.input_type(0).dtype.is_bool()) ctx.fail("input X must be numeric, found bool");
  std::vector<int64_t> shape = ctx.input_shape(0);
  TopKPlan plan;
  plan.axis = normalize_axis(ctx, ctx.attr_int("axis"), static_cast<int64_t>(shape.size()));
  if (ctx.opset() < 10) {
    if (!ctx.has_attr("k")) ctx.fail("attribute 'k' is required before opset 10");
    plan.k = ctx.attr_int("k");
  } else {
    std::vector<int64_t> k = ctx.input_ints(1);
    if (k.size() != 1) ctx.fail("input K must hold one value, found " + std::to_string(k.size()));
    plan.k = k[0];
  }
  int64_t extent = shape[static_cast<size_t>(plan.axis)];
  if (plan.k < 0 || plan.k > extent)
    ctx.fail("k is " + std::to_string(plan.k) + ", expected 0 <= k <= " + std::to_string(extent) +
             " (the extent of axis " + std::to_string(plan.axis) + ")");
  plan.largest = ctx.attr_int("largest") != 0;
  return plan;
}

/// The runtime step where k is an input known only at run time.
std::optional<DataDependentStep> topk_step(const OpContext& ctx) {
  if (ctx.opset() < 10 || ctx.input_value(1)) return std::nullopt;
  if (ctx.input_type(0).dtype.is_bool()) ctx.fail("input X must be numeric, found bool");
  int64_t axis = normalize_axis(ctx, ctx.attr_int("axis"), ctx.input_type(0).rank());
  return DataDependentStep{runtime::StepKind::TopK, {axis, ctx.attr_int("largest") != 0 ? 1 : 0}};
}

std::vector<int64_t> topk_shape(const OpContext& ctx, const TopKPlan& plan) {
  std::vector<int64_t> shape = ctx.input_shape(0);
  shape[static_cast<size_t>(plan.axis)] = plan.k;
  return shape;
}

std::vector<te::Tensor> topk_compute(const OpContext& ctx, const te::Tensor& x) {
  TopKPlan plan = topk_plan(ctx);
  auto axis = static_cast<size_t>(plan.axis);
  std::vector<int64_t> shape = ctx.input_shape(0);
  auto at = [&](std::vector<Expr> p, Expr position) {
    p[axis] = std::move(position);
    return p;
  };
  auto body_rank = [&](const std::vector<te::Var>& out) {
    std::vector<Expr> p(out.begin(), out.end());
    ir::IterVar m = te::reduce_axis(shape[axis], "m");
    Expr other = x(at(p, m.var)), self = x(p);
    Expr better = plan.largest ? other > self : other < self;
    Expr before = better || (other == self && m.var < p[axis]);
    return te::sum(ir::cast(ir::DataType::Int(64), before), {m});
  };
  te::Tensor rank = te::compute(shape_exprs(shape), body_rank, "topk.rank");
  auto body_index = [&](const std::vector<te::Var>& out) {
    std::vector<Expr> q(out.begin(), out.end());
    ir::IterVar i = te::reduce_axis(shape[axis], "i");
    return te::sum(i.var, {i}, rank(at(q, i.var)) == q[axis]);
  };
  te::Tensor index = te::compute(shape_exprs(topk_shape(ctx, plan)), body_index, "topk.indices");
  auto value = [&](const std::vector<Expr>& q) { return x(at(q, index(q))); };
  return {map_over(topk_shape(ctx, plan), value, "topk.values"), index};
}

}  // namespace

void register_topk_op(OpRegistry& registry) {
  OpDef def;
  def.name = "TopK";
  def.since_version = 1;
  def.attributes = {{"axis", AttrKind::Int, Attribute::of_int(-1)},
                    {"largest", AttrKind::Int, Attribute::of_int(1)},
                    {"sorted", AttrKind::Int, Attribute::of_int(1)},
                    {"k", AttrKind::Int, std::nullopt}};
  def.pattern = PatternKind::Opaque;
  def.value_inputs = {1};
  def.infer = [](const OpContext& ctx) {
    if (std::optional<DataDependentStep> step = topk_step(ctx)) return largest_outputs(ctx, *step);
    std::vector<int64_t> shape = topk_shape(ctx, topk_plan(ctx));
    return std::vector{graph::TensorType::of(ctx.input_type(0).dtype, shape),
                       graph::TensorType::of(ir::DataType::Int(64), shape)};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    return topk_compute(ctx, in[0]);
  };
  def.data_dependent = topk_step;
  registry.add(std::move(def));
}

}  // namespace tessel::ops::reduction

// LRN (normalisation by the squares of neighbouring channels) and LpNormalization (division
// by the L1 or L2 norm along an axis).
#include "ops/op_util.h"
#include "ops/reduction/reduction_ops.h"
#include "ops/reduction/reduction_util.h"
#include "schedules/cpu/row_schedule.h"

namespace tessel::ops::reduction {
namespace {

using graph::Attribute;
using graph::AttrKind;
using ir::Expr;

// ---- LRN -------------------------------------------------------------------------------

int64_t lrn_size(const OpContext& ctx) {
  check_float_input(ctx, 0, "input X");
  std::vector<int64_t> x = ctx.input_shape(0);
  if (x.size() < 2) ctx.fail("input X " + shape_text(x) + " must have rank >= 2: [N, C, ...]");
  int64_t size = ctx.attr_int("size");
  if (size <= 0) ctx.fail("attribute 'size' is " + std::to_string(size) + ", expected > 0");
  return size;
}

std::vector<te::Tensor> lrn_compute(const OpContext& ctx, const te::Tensor& x) {
  int64_t size = lrn_size(ctx);
  std::vector<int64_t> shape = ctx.input_shape(0);
  ir::DataType acc = float_compute_type(x.dtype());
  int64_t before = (size - 1) / 2;  // channels before c in the window; the rest come after
  auto square_sum = [&](const std::vector<te::Var>& out) {
    ir::IterVar j = te::reduce_axis(size, "j");
    std::vector<Expr> p(out.begin(), out.end());
    Expr c = p[1] - before + j.var;
    p[1] = c;
    Expr v = ir::cast(acc, x(p));
    return te::sum(v * v, {j}, c >= 0 && c < shape[1]);
  };
  te::Tensor sums = te::compute(shape_exprs(shape), square_sum, "lrn.square_sum");
  Expr bias = ir::make_const(acc, ctx.attr_float("bias"));
  Expr alpha = ir::make_const(acc, ctx.attr_float("alpha") / static_cast<double>(size));
  Expr beta = ir::make_const(acc, ctx.attr_float("beta"));
  auto normalize = [&](const std::vector<Expr>& p) {
    return ir::cast(x.dtype(), ir::cast(acc, x(p)) / ir::pow(bias + alpha * sums(p), beta));
  };
  return {map_over(shape, normalize, "lrn")};
}

OpDef lrn_def() {
  OpDef def;
  def.name = "LRN";
  def.since_version = 1;
  def.attributes = {{"alpha", AttrKind::Float, Attribute::of_float(1e-4)},
                    {"beta", AttrKind::Float, Attribute::of_float(0.75)},
                    {"bias", AttrKind::Float, Attribute::of_float(1.0)},
                    {"size", AttrKind::Int, std::nullopt, true}};
  def.pattern = PatternKind::Reduction;
  def.infer = [](const OpContext& ctx) {
    lrn_size(ctx);
    return std::vector{ctx.input_type(0)};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    return lrn_compute(ctx, in[0]);
  };
  return def;
}

// ---- LpNormalization -------------------------------------------------------------------

struct LpPlan {
  std::vector<int64_t> axes;  // the one axis normalised
  int64_t p = 2;
};

LpPlan lp_plan(const OpContext& ctx) {
  check_float_input(ctx, 0, "input");
  LpPlan plan;
  plan.axes = {normalize_axis(ctx, ctx.attr_int("axis"), ctx.input_type(0).rank())};
  plan.p = ctx.attr_int("p");
  if (plan.p != 1 && plan.p != 2)
    ctx.fail("attribute 'p' is " + std::to_string(plan.p) + ", expected 1 or 2");
  return plan;
}

std::vector<te::Tensor> lp_compute(const OpContext& ctx, const te::Tensor& x) {
  LpPlan plan = lp_plan(ctx);
  std::vector<int64_t> shape = ctx.input_shape(0);
  ir::DataType acc = float_compute_type(x.dtype());
  auto load = [&](const std::vector<Expr>& p) { return ir::cast(acc, x(p)); };
  auto magnitude = [&](const std::vector<Expr>& p) {
    Expr v = load(p);
    return plan.p == 1 ? ir::abs(v) : v * v;
  };
  te::Tensor sum = reduce_over(shape, plan.axes, true, ir::ReduceOp::Sum, magnitude, "lpnorm.sum");
  auto normalize = [&](const std::vector<Expr>& p) {
    Expr norm = load_reduced(sum, p, plan.axes);
    return ir::cast(x.dtype(), load(p) / (plan.p == 1 ? norm : ir::sqrt(norm)));
  };
  return {map_over(shape, normalize, "lpnorm")};
}

OpDef lp_def() {
  OpDef def;
  def.name = "LpNormalization";
  def.since_version = 1;
  def.attributes = {{"axis", AttrKind::Int, Attribute::of_int(-1)},
                    {"p", AttrKind::Int, Attribute::of_int(2)}};
  def.pattern = PatternKind::Reduction;
  def.infer = [](const OpContext& ctx) {
    lp_plan(ctx);
    return std::vector{ctx.input_type(0)};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    return lp_compute(ctx, in[0]);
  };
  def.schedule = [](const OpContext& ctx, schedule::Schedule& s,
                    const std::vector<te::Tensor>& outputs) {
    int64_t rows = schedules::row_axes_before(lp_plan(ctx).axes, ctx.input_type(0).rank());
    schedules::schedule_rows(s, outputs[0], rows, ctx.input_type(0).num_elements(), ctx.target());
  };
  return def;
}

}  // namespace

void register_local_norm_ops(OpRegistry& registry) {
  registry.add(lrn_def());
  registry.add(lp_def());
}

}  // namespace tessel::ops::reduction

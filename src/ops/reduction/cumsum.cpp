// CumSum: running sums along one axis (input 1), inclusive or exclusive, forwards or in
// reverse; each output element is a conditional reduction over the axis.
#include "ops/op_util.h"
#include "ops/reduction/reduction_ops.h"
#include "ops/reduction/reduction_util.h"

namespace tessel::ops::reduction {
namespace {

using graph::Attribute;
using graph::AttrKind;
using ir::Expr;

int64_t cumsum_axis(const OpContext& ctx) {
  if (ctx.input_type(0).dtype.is_bool()) ctx.fail("input x must be numeric, found bool");
  std::vector<int64_t> axis = ctx.input_ints(1);
  if (axis.size() != 1)
    ctx.fail("input axis must hold one value, found " + std::to_string(axis.size()));
  return normalize_axis(ctx, axis[0], ctx.input_type(0).rank());
}

std::vector<te::Tensor> cumsum_compute(const OpContext& ctx, const te::Tensor& x) {
  auto axis = static_cast<size_t>(cumsum_axis(ctx));
  bool exclusive = ctx.attr_int("exclusive") != 0;
  bool reverse = ctx.attr_int("reverse") != 0;
  std::vector<int64_t> shape = ctx.input_shape(0);
  ir::DataType acc = x.dtype().is_float() ? float_compute_type(x.dtype()) : x.dtype();
  auto body = [&](const std::vector<te::Var>& out) {
    ir::IterVar k = te::reduce_axis(shape[axis], "k");
    std::vector<Expr> p(out.begin(), out.end());
    Expr i = p[axis];
    p[axis] = k.var;
    Expr in_range =
        reverse ? (exclusive ? k.var > i : k.var >= i) : (exclusive ? k.var < i : k.var <= i);
    return te::sum(ir::cast(acc, x(p)), {k}, in_range);
  };
  bool direct = acc == x.dtype();
  te::Tensor sums = te::compute(shape_exprs(shape), body, direct ? "cumsum" : "cumsum.acc");
  if (direct) return {sums};
  auto narrow = [&](const std::vector<Expr>& p) { return ir::cast(x.dtype(), sums(p)); };
  return {map_over(shape, narrow, "cumsum")};
}

}  // namespace

void register_cumsum_op(OpRegistry& registry) {
  OpDef def;
  def.name = "CumSum";
  def.since_version = 11;
  def.attributes = {{"exclusive", AttrKind::Int, Attribute::of_int(0)},
                    {"reverse", AttrKind::Int, Attribute::of_int(0)}};
  def.pattern = PatternKind::Reduction;
  def.value_inputs = {1};
  def.infer = [](const OpContext& ctx) {
    cumsum_axis(ctx);
    return std::vector{ctx.input_type(0)};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    return cumsum_compute(ctx, in[0]);
  };
  registry.add(std::move(def));
}

}  // namespace tessel::ops::reduction

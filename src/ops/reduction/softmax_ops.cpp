// Softmax, LogSoftmax, Hardmax: computes over a set of axes, and the operators (before
// opset 13 the input is seen as 2-d around `axis`, default 1, and normalised over the
// flattened trailing part; from 13 on along `axis`, default -1).
#include "ops/reduction/softmax_ops.h"

#include "ops/op_util.h"
#include "ops/reduction/reduction_ops.h"
#include "ops/reduction/reduction_util.h"
#include "schedules/cpu/row_schedule.h"
#include "schedules/knobs.h"
#include "support/error.h"

namespace tessel::ops::reduction {
namespace {

using graph::AttrKind;
using ir::Expr;

/// The row-major position of `p` within its group (the sub-tensor spanned by `axes`).
Expr flat_position(const std::vector<Expr>& p, const std::vector<int64_t>& shape,
                   const std::vector<int64_t>& axes) {
  Expr flat = p[static_cast<size_t>(axes[0])];
  for (size_t k = 1; k < axes.size(); ++k) {
    auto d = static_cast<size_t>(axes[k]);
    flat = flat * shape[d] + p[d];
  }
  return flat;
}

}  // namespace

te::Tensor softmax_over(SoftmaxKind kind, const te::Tensor& x, const std::vector<int64_t>& axes,
                        const std::string& name) {
  std::vector<int64_t> shape = te::static_shape(x);
  ir::DataType dtype = x.dtype();
  ir::DataType acc = float_compute_type(dtype);
  auto load = [&](const std::vector<Expr>& p) { return ir::cast(acc, x(p)); };
  te::Tensor max = reduce_over(shape, axes, true, ir::ReduceOp::Max, load, name + ".max");
  auto shifted = [&](const std::vector<Expr>& p) { return load(p) - load_reduced(max, p, axes); };
  switch (kind) {
    case SoftmaxKind::Softmax: {
      te::Tensor e = map_over(
          shape, [&](const std::vector<Expr>& p) { return ir::exp(shifted(p)); }, name + ".exp");
      auto load_e = [&](const std::vector<Expr>& p) { return e(p); };
      te::Tensor sum = reduce_over(shape, axes, true, ir::ReduceOp::Sum, load_e, name + ".sum");
      return map_over(
          shape,
          [&](const std::vector<Expr>& p) {
            return ir::cast(dtype, e(p) / load_reduced(sum, p, axes));
          },
          name);
    }
    case SoftmaxKind::LogSoftmax: {
      auto exp_shifted = [&](const std::vector<Expr>& p) { return ir::exp(shifted(p)); };
      te::Tensor sum =
          reduce_over(shape, axes, true, ir::ReduceOp::Sum, exp_shifted, name + ".sum");
      return map_over(
          shape,
          [&](const std::vector<Expr>& p) {
            return ir::cast(dtype, shifted(p) - ir::log(load_reduced(sum, p, axes)));
          },
          name);
    }
    case SoftmaxKind::Hardmax: {
      auto position = [&](const std::vector<Expr>& p) { return flat_position(p, shape, axes); };
      auto is_max = [&](const std::vector<Expr>& p) {
        return load(p) == load_reduced(max, p, axes);
      };
      te::Tensor first =
          reduce_over(shape, axes, true, ir::ReduceOp::Min, position, name + ".first", is_max);
      return map_over(
          shape,
          [&](const std::vector<Expr>& p) {
            Expr hit = position(p) == load_reduced(first, p, axes);
            return ir::select(hit, ir::make_const(dtype, 1), ir::make_const(dtype, 0));
          },
          name);
    }
  }
  TESSEL_ICHECK(false, "unknown softmax kind");
  return {};
}

namespace {

struct SoftmaxOp {
  const char* name;
  SoftmaxKind kind;
};

constexpr SoftmaxOp kSoftmaxOps[] = {{"Softmax", SoftmaxKind::Softmax},
                                     {"LogSoftmax", SoftmaxKind::LogSoftmax},
                                     {"Hardmax", SoftmaxKind::Hardmax}};

/// The axes normalised together, by the opset's rule.
std::vector<int64_t> softmax_axes(const OpContext& ctx) {
  check_float_input(ctx, 0, "input");
  int64_t rank = ctx.input_type(0).rank();
  bool coerced_2d = ctx.opset() < 13;
  int64_t axis = ctx.has_attr("axis") ? ctx.attr_int("axis") : (coerced_2d ? 1 : -1);
  axis = normalize_axis(ctx, axis, rank);
  return coerced_2d ? trailing_axes(axis, rank) : std::vector<int64_t>{axis};
}

OpDef softmax_def(const SoftmaxOp& op) {
  OpDef def;
  def.name = op.name;
  def.since_version = 1;
  def.attributes = {{"axis", AttrKind::Int, std::nullopt}};
  def.pattern = PatternKind::Reduction;
  def.infer = [](const OpContext& ctx) {
    softmax_axes(ctx);
    return std::vector{ctx.input_type(0)};
  };
  def.compute = [op](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    return std::vector{softmax_over(op.kind, in[0], softmax_axes(ctx), "softmax")};
  };
  def.schedule = [](const OpContext& ctx, schedule::Schedule& s,
                    const std::vector<te::Tensor>& outputs) {
    schedules::schedule_rows(
        s, outputs[0], schedules::row_axes_before(softmax_axes(ctx), ctx.input_type(0).rank()),
        ctx.input_type(0).num_elements(), ctx.target(), schedules::row_config(ctx.knobs()));
  };
  def.tuning_space = [](const OpContext& ctx) {
    if (ctx.input_type(0).dtype != ir::DataType::Float(32)) return schedules::TuningSpace{};
    return schedules::rows_tuning_space(
        "softmax", ctx.input_shape(0),
        schedules::row_axes_before(softmax_axes(ctx), ctx.input_type(0).rank()), ctx.target());
  };
  return def;
}

}  // namespace

void register_softmax_ops(OpRegistry& registry) {
  for (const SoftmaxOp& op : kSoftmaxOps) registry.add(softmax_def(op));
}

}  // namespace tessel::ops::reduction

// MaxUnpool: the partial inverse of MaxPool. Each output position gathers the pooled value
// whose index names it, searching only the pooling windows that cover the position (the
// indices come from a MaxPool with the same kernel, strides and pads); positions no index
// names are zero.
#include <limits>

#include "ops/nn/nn_ops.h"
#include "ops/nn/nn_util.h"
#include "ops/nn/window.h"
#include "ops/op_util.h"
#include "schedules/cpu/contraction.h"
#include "schedules/cpu/generic.h"

namespace tessel::ops::nn {
namespace {

using graph::AttrKind;

/// The unpooling: `window` slides over the extents MaxPool pooled (`window.input`, the
/// extents the indices refer to) and `output` is the output shape (possibly larger).
struct Unpool {
  Window window;
  std::vector<int64_t> output;
};

Unpool unpool_shape(const OpContext& ctx) {
  check_dtype(ctx, 0, float_types());
  check_dtype(ctx, 1, {ir::DataType::Int(64)});
  std::vector<int64_t> x = ctx.input_shape(0);
  if (x.size() < 3) ctx.fail("input X " + shape_text(x) + " must have rank >= 3: [N, C, ...]");
  if (ctx.input_shape(1) != x)
    ctx.fail("indices I " + shape_text(ctx.input_shape(1)) + " must have the shape of X " +
             shape_text(x));
  std::vector<int64_t> pooled(x.begin() + 2, x.end());
  Unpool u;
  u.window = window_attributes(ctx, pooled, kernel_extents(ctx, {}));
  Window& w = u.window;
  u.output = {x[0], x[1]};
  for (size_t d = 0; d < w.rank(); ++d) {
    int64_t extent = (pooled[d] - 1) * w.strides[d] + w.kernel[d] - w.pads_begin[d] - w.pads_end[d];
    if (extent < 1) ctx.fail("the unpooled extents are empty for pooled " + shape_text(pooled));
    w.input[d] = extent;
    u.output.push_back(extent);
  }
  w.output = pooled;
  if (ctx.has_input(2)) {
    std::vector<int64_t> requested = ctx.input_ints(2);
    if (requested.size() != x.size())
      ctx.fail("output_shape " + shape_text(requested) + " must have rank " +
               std::to_string(x.size()));
    for (size_t d = 0; d < requested.size(); ++d)
      if (requested[d] < u.output[d] || (d < 2 && requested[d] != x[d]))
        ctx.fail("output_shape " + shape_text(requested) + " is smaller than the unpooled " +
                 "shape " + shape_text(u.output) + " or changes [N, C]");
    u.output = requested;
  }
  return u;
}

std::vector<te::Tensor> unpool_compute(const OpContext& ctx, const std::vector<te::Tensor>& in) {
  Unpool u = unpool_shape(ctx);
  const Window& w = u.window;
  const te::Tensor &x = in[0], &indices = in[1];
  size_t rank = w.rank();
  // Tap r of dimension d is the window o = (p + pad) / stride - r; ceil(kernel / stride)
  // windows cover a position.
  std::vector<te::IterVar> taps;
  std::vector<int64_t> tap_extents;
  for (size_t d = 0; d < rank; ++d) {
    tap_extents.push_back((w.kernel[d] + w.strides[d] - 1) / w.strides[d]);
    taps.push_back(te::reduce_axis(ir::Expr(tap_extents.back()), indexed_name("r", d)));
  }
  auto window_of = [&](const std::vector<te::Var>& p, size_t d, const ir::Expr& r) {
    return (p[d + 2] + w.pads_begin[d]) / w.strides[d] - r;
  };
  int64_t none = std::numeric_limits<int64_t>::max();
  te::Tensor first =
      te::compute(shape_exprs(u.output),
                  [&](const std::vector<te::Var>& p) {
                    std::vector<ir::Expr> at = {p[0], p[1]};
                    ir::Expr valid = ir::make_bool(true), flat = int64_t{0}, tap = int64_t{0};
                    for (size_t d = 0; d < rank; ++d) {
                      ir::Expr o = window_of(p, d, taps[d].var);
                      valid = valid && p[d + 2] < w.input[d] && o >= 0 && o < w.output[d] &&
                              p[d + 2] + w.pads_begin[d] - o * w.strides[d] < w.kernel[d];
                      at.push_back(o);
                      flat = flat * w.input[d] + p[d + 2];
                      tap = tap * tap_extents[d] + taps[d].var;
                    }
                    flat = (ir::Expr(p[0]) * u.output[1] + p[1]) * te::shape_size(w.input) + flat;
                    ir::Expr hit = indices(at) == flat;
                    return te::min_reduce(ir::select(hit, tap, ir::make_int(none)), taps, valid);
                  },
                  "unpool.tap", {});
  return {te::compute(
      shape_exprs(u.output),
      [&](const std::vector<te::Var>& p) {
        ir::Expr tap = first(std::vector<ir::Expr>(p.begin(), p.end()));
        std::vector<ir::Expr> at = {p[0], p[1]};
        int64_t stride = te::shape_size(tap_extents);
        for (size_t d = 0; d < rank; ++d) {
          stride /= tap_extents[d];
          ir::Expr o = window_of(p, d, tap / stride % tap_extents[d]);
          at.push_back(ir::max(ir::min(o, w.output[d] - 1), int64_t{0}));
        }
        return ir::select(tap != none, x(at), ir::make_const(x.dtype(), 0));
      },
      "unpool")};
}

OpDef max_unpool_def() {
  OpDef def;
  def.name = "MaxUnpool";
  def.since_version = 9;
  def.attributes = {{"kernel_shape", AttrKind::Ints, std::nullopt, true},
                    {"pads", AttrKind::Ints, std::nullopt},
                    {"strides", AttrKind::Ints, std::nullopt}};
  def.pattern = PatternKind::Opaque;
  def.value_inputs = {2};
  def.infer = [](const OpContext& ctx) {
    return std::vector{graph::TensorType::of(ctx.input_type(0).dtype, unpool_shape(ctx).output)};
  };
  def.compute = unpool_compute;
  def.schedule = [](const OpContext& ctx, schedule::Schedule& s,
                    const std::vector<te::Tensor>& outputs) {
    schedules::schedule_contraction(s, s.tensor("unpool.tap"), ctx.target());
    schedules::schedule_generic(s, outputs, ctx.target());
  };
  return def;
}

}  // namespace

void register_max_unpool_op(OpRegistry& registry) {
  registry.add(max_unpool_def());
}

}  // namespace tessel::ops::nn

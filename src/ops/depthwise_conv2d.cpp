// Depthwise conv2d: a phase-split padding stage and a column-vectorised schedule.
#include "ops/depthwise_conv2d.h"

#include <algorithm>

#include "ops/op_util.h"
#include "ops/target_budget.h"
#include "support/error.h"

namespace tessel::ops {
namespace {

int64_t const_dim(const te::Tensor& t, int d) { return constant_dim(t, d, "depthwise conv2d"); }

}  // namespace

te::Tensor depthwise_conv2d_nchw(const te::Tensor& data, const te::Tensor& weight, int64_t stride,
                                 int64_t pad, const std::string& name) {
  if (data.ndim() != 4 || weight.ndim() != 4 || const_dim(weight, 1) != 1 ||
      const_dim(weight, 0) != const_dim(data, 1))
    TESSEL_USER_ERROR("depthwise conv2d '", name, "': expects data [N, C, H, W] and weight "
                      "[C, 1, R, S]");
  if (stride <= 0 || pad < 0)
    TESSEL_USER_ERROR("depthwise conv2d '", name, "': stride must be positive and pad "
                      "non-negative, got ", stride, " and ", pad);
  int64_t n = const_dim(data, 0), c = const_dim(data, 1), h = const_dim(data, 2),
          w = const_dim(data, 3), r = const_dim(weight, 2), s = const_dim(weight, 3);
  int64_t oh = (h + 2 * pad - r) / stride + 1, ow = (w + 2 * pad - s) / stride + 1;
  if (oh <= 0 || ow <= 0)
    TESSEL_USER_ERROR("depthwise conv2d '", name, "': a ", r, "x", s, " kernel does not fit a ",
                      h, "x", w, " input padded by ", pad);
  int64_t columns = (w + 2 * pad + stride - 1) / stride;
  // Select evaluates both arms, so the load is clamped into the input.
  te::Tensor phases = te::compute(
      {n, c, h + 2 * pad, stride, columns},
      [&](te::Var b, te::Var ch, te::Var y, te::Var phase, te::Var q) {
        ir::Expr yy = y - pad, xx = q * stride + phase - pad;
        ir::Expr inside = yy >= 0 && yy < h && xx >= 0 && xx < w;
        ir::Expr value =
            data(b, ch, ir::max(ir::min(yy, h - 1), 0), ir::max(ir::min(xx, w - 1), 0));
        return ir::select(inside, value, ir::make_const(data.dtype(), 0));
      },
      name + ".pad", {"n", "c", "h", "phase", "q"});
  te::IterVar ry = te::reduce_axis(r, "ry");
  te::IterVar rx = te::reduce_axis(s, "rx");
  return te::compute(
      {n, c, oh, ow},
      [&](te::Var b, te::Var ch, te::Var y, te::Var x) {
        return te::sum(phases(b, ch, y * stride + ry.var, rx.var % stride, x + rx.var / stride) *
                           weight(ch, 0, ry.var, rx.var),
                       {ry, rx});
      },
      name, {"n", "c", "oh", "ow"});
}

void schedule_depthwise_conv2d_cpu(schedule::Schedule& s, const te::Tensor& out,
                                   const target::Target& target) {
  const te::Tensor& phases = out.op()->inputs.at(0);
  int64_t lanes = target.float_lanes();
  int64_t ow = *ir::as_const_int(out.shape()[3]);
  // Up to four vectors of columns: independent accumulation chains.
  int64_t tile = std::min<int64_t>(4 * lanes, (ow + lanes - 1) / lanes * lanes);
  te::Tensor acc = s.cache_write(out, "local");
  auto [owo, owi] = s.split(out, "ow", tile);
  std::string rows = s.fuse(out, s.fuse(out, "n", "c"), "oh");
  s.parallel(out, rows);
  s.vectorize(out, owi);

  s.compute_at(acc, out, owo);
  s.reorder(acc, {"ry", "rx", "n", "c", "oh", "ow"});
  s.unroll(acc, "ry");
  s.unroll(acc, "rx");
  s.vectorize(acc, "ow");

  std::vector<std::string> pad_loops = s.stage(phases).leaves;  // n, c, h, phase, q
  s.parallel(phases, s.fuse(phases, pad_loops[0], pad_loops[1]));
}

}  // namespace tessel::ops

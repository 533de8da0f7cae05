// Depthwise conv2d compute: a phase-split padding stage and the window sum.
#include "ops/depthwise_conv2d.h"

#include "ops/op_util.h"
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

}  // namespace tessel::ops

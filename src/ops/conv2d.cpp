// Conv2d compute, with an explicit padding stage.
#include "ops/conv2d.h"

#include "ops/op_util.h"
#include "support/error.h"

namespace tessel::ops {
namespace {

int64_t const_dim(const te::Tensor& t, int d) { return constant_dim(t, d, "conv2d"); }

}  // namespace

te::Tensor pad_spatial(const te::Tensor& data, int64_t pad, const std::string& name) {
  if (pad == 0 && data.op()->is_placeholder()) return data;
  int64_t h = const_dim(data, 2), w = const_dim(data, 3);
  std::vector<ir::Expr> shape = data.shape();
  shape[2] = h + 2 * pad;
  shape[3] = w + 2 * pad;
  std::vector<std::string> names = {"n", "c", "h", "w"};
  if (data.ndim() == 5) names.push_back("ci");
  return te::compute(
      shape,
      [&](const std::vector<te::Var>& index) {
        std::vector<ir::Expr> at(index.begin(), index.end());
        ir::Expr y = at[2] - pad, x = at[3] - pad;
        ir::Expr inside = y >= 0 && y < h && x >= 0 && x < w;
        // Select evaluates both arms: the load is clamped into the data.
        at[2] = ir::max(ir::min(y, h - 1), 0);
        at[3] = ir::max(ir::min(x, w - 1), 0);
        return ir::select(inside, data(at), ir::make_const(data.dtype(), 0));
      },
      name + ".pad", names);
}

te::Tensor conv2d_nchw(const te::Tensor& data, const te::Tensor& weight, const Conv2dParams& p,
                       const std::string& name) {
  if (data.ndim() != 4 || weight.ndim() != 4)
    TESSEL_USER_ERROR("conv2d '", name, "': data and weight must be 4-d, got ", data.ndim(),
                      "-d and ", weight.ndim(), "-d");
  int64_t n = const_dim(data, 0), c = const_dim(data, 1), h = const_dim(data, 2),
          w = const_dim(data, 3);
  int64_t k = const_dim(weight, 0), r = const_dim(weight, 2), s = const_dim(weight, 3);
  if (const_dim(weight, 1) != c)
    TESSEL_USER_ERROR("conv2d '", name, "': data has ", c, " channels, weight expects ",
                      const_dim(weight, 1));
  if (p.stride <= 0 || p.pad < 0)
    TESSEL_USER_ERROR("conv2d '", name, "': stride must be positive and pad non-negative, got ",
                      p.stride, " and ", p.pad);
  int64_t oh = (h + 2 * p.pad - r) / p.stride + 1;
  int64_t ow = (w + 2 * p.pad - s) / p.stride + 1;
  if (oh <= 0 || ow <= 0)
    TESSEL_USER_ERROR("conv2d '", name, "': a ", r, "x", s, " kernel does not fit a ", h, "x", w,
                      " input padded by ", p.pad);

  te::Tensor padded = pad_spatial(data, p.pad, name);

  if (p.weight_block <= 0)
    TESSEL_USER_ERROR("conv2d '", name, "': the weight block must be positive, got ",
                      p.weight_block);
  int64_t block = p.weight_block;
  int64_t blocks = (k + block - 1) / block;
  te::Tensor packed = te::compute(
      {blocks, c, r, s, block},
      [&](te::Var kb, te::Var ch, te::Var y, te::Var x, te::Var kk) {
        ir::Expr oc = kb * block + kk;
        return ir::select(oc < k, weight(ir::min(oc, k - 1), ch, y, x),
                          ir::make_const(weight.dtype(), 0));
      },
      name + ".packed", {"kb", "c", "ry", "rx", "kk"});

  te::IterVar rc = te::reduce_axis(c, "rc");
  te::IterVar ry = te::reduce_axis(r, "ry");
  te::IterVar rx = te::reduce_axis(s, "rx");
  // Whole blocks of output channels are computed (a tile never has a partial vector of
  // channels); "<name>.k" drops the padding channels when k is not a multiple of block.
  te::Tensor out = te::compute(
      {n, blocks * block, oh, ow},
      [&](te::Var b, te::Var oc, te::Var y, te::Var x) {
        return te::sum(padded(b, rc.var, y * p.stride + ry.var, x * p.stride + rx.var) *
                           packed(oc / block, rc.var, ry.var, rx.var, oc % block),
                       {rc, ry, rx});
      },
      name, {"n", "k", "oh", "ow"});
  if (blocks * block == k) return out;
  return te::compute(
      {n, k, oh, ow},
      [&](te::Var b, te::Var oc, te::Var y, te::Var x) { return out(b, oc, y, x); },
      name + ".k", {"n", "k", "oh", "ow"});
}

}  // namespace tessel::ops

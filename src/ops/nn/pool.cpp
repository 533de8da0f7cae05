// The pooling mechanism (see pool.h).
#include "ops/nn/pool.h"

#include <limits>

#include "ops/nn/nn_util.h"
#include "ops/op_util.h"

namespace tessel::ops::nn {
namespace {

/// The window taps as reduction axes k0, k1, ...
std::vector<te::IterVar> tap_axes(const Window& w) {
  std::vector<te::IterVar> taps;
  for (size_t d = 0; d < w.rank(); ++d)
    taps.push_back(te::reduce_axis(ir::Expr(w.kernel[d]), indexed_name("k", d)));
  return taps;
}

/// The input position that output `index` reads at `taps`, and the condition that it lies
/// inside the input (undefined when every window does).
struct Tap {
  std::vector<ir::Expr> at;
  ir::Expr inside;

  /// `at` clamped into the input of window `w`.
  std::vector<ir::Expr> clamped(const Window& w) const {
    std::vector<ir::Expr> c = at;
    for (size_t d = 0; d < w.rank(); ++d)
      c[d + 2] = ir::max(ir::min(at[d + 2], w.input[d] - 1), int64_t{0});
    return c;
  }
};

/// Whether the taps' condition is better applied by a select than by a conditional
/// reduction: when the last axis reads every position in place (a window of one, stride 1,
/// no pad, as the channels of a block in NCHW[x]c), the condition is the same along it and
/// the unconditional reduction vectorises over it.
bool select_taps(const Window& w) {
  size_t d = w.rank() - 1;
  return !w.inside() && w.kernel[d] == 1 && w.strides[d] == 1 && w.pads_begin[d] == 0 &&
         w.pads_end[d] == 0 && w.input[d] == w.output[d];
}

Tap tap_position(const Window& w, const std::vector<te::Var>& index,
                 const std::vector<te::IterVar>& taps) {
  Tap tap{{index[0], index[1]}, ir::Expr()};
  bool always_inside = w.inside();
  for (size_t d = 0; d < w.rank(); ++d) {
    ir::Expr pos = index[d + 2] * w.strides[d] - w.pads_begin[d] + taps[d].var * w.dilations[d];
    tap.at.push_back(pos);
    if (always_inside) continue;
    ir::Expr in = pos >= 0 && pos < w.input[d];
    tap.inside = tap.inside.defined() ? tap.inside && in : in;
  }
  return tap;
}

ir::Expr ceil_div(const ir::Expr& a, int64_t b) {
  return (a + (b - 1)) / b;
}

/// How many taps of the window at output `index` an average divides by.
ir::Expr tap_count(const Window& w, const std::vector<te::Var>& index, bool count_include_pad) {
  int64_t all = 1;
  for (int64_t k : w.kernel) all *= k;
  if (w.inside()) return ir::Expr(all);
  ir::Expr count = ir::Expr(int64_t{1});
  for (size_t d = 0; d < w.rank(); ++d) {
    ir::Expr start = index[d + 2] * w.strides[d] - w.pads_begin[d];
    int64_t lo = count_include_pad ? -w.pads_begin[d] : 0;
    int64_t hi = count_include_pad ? w.input[d] + w.pads_end[d] : w.input[d];
    ir::Expr first = ir::max(ceil_div(lo - start, w.dilations[d]), int64_t{0});
    ir::Expr last = ir::min(ceil_div(hi - start, w.dilations[d]), w.kernel[d]);
    count = count * ir::max(last - first, int64_t{0});
  }
  return count;
}

std::vector<int64_t> output_shape(const te::Tensor& x, const Window& w) {
  std::vector<int64_t> shape = te::static_shape(x);
  shape.resize(2);
  shape.insert(shape.end(), w.output.begin(), w.output.end());
  return shape;
}

std::vector<std::string> axis_names(const Window& w) {
  std::vector<std::string> names = {"n", "c"};
  for (size_t d = 0; d < w.rank(); ++d) names.push_back(indexed_name("o", d));
  return names;
}

}  // namespace

te::Tensor pool_nd(const te::Tensor& x, const Window& w, const PoolSpec& spec,
                   const std::string& name) {
  std::vector<ir::Expr> shape = shape_exprs(output_shape(x, w));
  std::vector<te::IterVar> taps = tap_axes(w);
  ir::DataType dtype = x.dtype(), acc = accumulation_type(dtype);
  if (spec.kind == PoolKind::Max) {
    return te::compute(
        shape,
        [&](const std::vector<te::Var>& index) {
          Tap tap = tap_position(w, index, taps);
          if (!select_taps(w)) return te::max_reduce(x(tap.at), taps, tap.inside);
          // Select evaluates both arms: the load is clamped into the input.
          ir::Expr lowest = ir::reduce_identity(ir::ReduceOp::Max, dtype);
          return te::max_reduce(ir::select(tap.inside, x(tap.clamped(w)), lowest), taps);
        },
        name, axis_names(w));
  }
  bool lp = spec.kind == PoolKind::Lp;
  te::Tensor sum = te::compute(
      shape,
      [&](const std::vector<te::Var>& index) {
        Tap tap = tap_position(w, index, taps);
        bool select = select_taps(w);
        ir::Expr v = ir::cast(acc, x(select ? tap.clamped(w) : tap.at));
        if (lp) v = spec.p == 2 ? v * v : ir::pow(ir::abs(v), ir::make_const(acc, spec.p));
        if (!select) return te::sum(v, taps, tap.inside);
        return te::sum(ir::select(tap.inside, v, ir::make_const(acc, 0)), taps);
      },
      name + ".sum", axis_names(w));
  return te::compute(
      shape,
      [&](const std::vector<te::Var>& index) {
        ir::Expr total = sum(std::vector<ir::Expr>(index.begin(), index.end()));
        ir::Expr value = !lp ? total / ir::cast(acc, tap_count(w, index, spec.count_include_pad))
                         : spec.p == 2 ? ir::sqrt(total)
                                       : ir::pow(total, ir::make_const(acc, 1.0 / spec.p));
        return ir::cast(dtype, value);
      },
      name, axis_names(w));
}

Window global_window(const std::vector<int64_t>& input) {
  size_t rank = input.size();
  Window w;
  w.input = input;
  w.kernel = input;
  w.strides.assign(rank, 1);
  w.dilations.assign(rank, 1);
  w.pads_begin.assign(rank, 0);
  w.pads_end.assign(rank, 0);
  w.output.assign(rank, 1);
  return w;
}

te::Tensor max_pool_indices(const te::Tensor& x, const te::Tensor& y, const Window& w,
                            bool column_major, const std::string& name) {
  std::vector<int64_t> x_shape = te::static_shape(x);
  std::vector<te::IterVar> taps = tap_axes(w);
  ir::DataType index_type = ir::DataType::Int(64);
  return te::compute(
      y.shape(),
      [&](const std::vector<te::Var>& index) {
        Tap tap = tap_position(w, index, taps);
        ir::Expr flat = ir::Expr(index[0]) * x_shape[1] + index[1];
        ir::Expr spatial = int64_t{0};
        int64_t stride = 1;
        for (size_t e = 0; e < w.rank(); ++e) {
          // Row-major: the last spatial dimension moves fastest; column-major: the first.
          size_t d = column_major ? e : w.rank() - 1 - e;
          spatial = spatial + tap.at[d + 2] * stride;
          stride *= w.input[d];
        }
        flat = flat * stride + spatial;
        ir::Expr is_max = x(tap.at) == y(std::vector<ir::Expr>(index.begin(), index.end()));
        ir::Expr none = ir::make_int(std::numeric_limits<int64_t>::max(), index_type);
        return te::min_reduce(ir::select(is_max, ir::cast(index_type, flat), none), taps,
                              tap.inside);
      },
      name, axis_names(w));
}

}  // namespace tessel::ops::nn

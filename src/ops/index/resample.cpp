// Resampling of N-d tensors (see resample.h).
#include "ops/index/resample.h"

#include "ops/index/index_common.h"
#include "ops/op_util.h"

namespace tessel::ops::index {
namespace {

using ir::Expr;
using te::Var;

/// One input element contributing to an output element: its index on one axis and its
/// weight (undefined: the only tap, weight 1).
struct Tap {
  Expr index;
  Expr weight;
};

/// Whether the axis maps every output coordinate to itself.
bool is_identity(const ResampleSpec& spec, const ResampleAxis& axis) {
  bool exact = spec.coordinates != CoordinateMode::TfHalfPixelForNn &&
               spec.coordinates != CoordinateMode::TfCropAndResize;
  return exact && axis.in == axis.out && axis.scale == 1;
}

/// The input coordinate (float64) of output coordinate `x` on `axis`.
Expr source_coordinate(const ResampleSpec& spec, const ResampleAxis& axis, const Var& x) {
  Expr xf = ir::cast(ir::DataType::Float(64), x);
  bool unit = axis.length_minus_one == 0;
  double last = static_cast<double>(axis.in - 1);
  switch (spec.coordinates) {
    case CoordinateMode::HalfPixel:
      return (xf + f64(0.5)) / f64(axis.scale) - f64(0.5);
    case CoordinateMode::PytorchHalfPixel:
      return unit ? f64(-0.5) : (xf + f64(0.5)) / f64(axis.scale) - f64(0.5);
    case CoordinateMode::AlignCorners:
      return unit ? f64(0) : xf * f64(last) / f64(axis.length_minus_one);
    case CoordinateMode::Asymmetric:
      return xf / f64(axis.scale);
    case CoordinateMode::TfHalfPixelForNn:
      return (xf + f64(0.5)) / f64(axis.scale);
    case CoordinateMode::TfCropAndResize:
      return (unit ? f64(axis.roi_span * last / 2)
                   : xf * f64(axis.roi_span) * f64(last) / f64(axis.length_minus_one)) +
             f64(axis.roi_offset);
  }
  return Expr();
}

Expr round_nearest(const Expr& c, NearestRounding rounding) {
  switch (rounding) {
    case NearestRounding::RoundPreferFloor:
      return ir::ceil(c - f64(0.5));
    case NearestRounding::RoundPreferCeil:
      return ir::floor(c + f64(0.5));
    case NearestRounding::Floor:
      return ir::floor(c);
    case NearestRounding::Ceil:
      return ir::ceil(c);
  }
  return Expr();
}

/// The taps of output coordinate `x` on `axis`; adds to `outside` the condition under which
/// the coordinate falls outside the input (TfCropAndResize).
std::vector<Tap> axis_taps(const ResampleSpec& spec, const ResampleAxis& axis, const Var& x,
                           std::vector<Expr>& outside) {
  if (is_identity(spec, axis)) return {{x, Expr()}};
  Expr c = source_coordinate(spec, axis, x);
  if (spec.coordinates == CoordinateMode::TfCropAndResize)
    outside.push_back(c < f64(0) || c > f64(static_cast<double>(axis.in - 1)));
  if (spec.interpolation == Interpolation::Nearest)
    return {{clamp_index(round_nearest(c, axis.rounding), axis.in), Expr()}};
  Expr below = ir::floor(c);
  Expr r = c - below;
  Expr first = ir::cast(ir::DataType::Index(), below);
  if (spec.interpolation == Interpolation::Linear)
    return {{clamp_index(first, axis.in), f64(1) - r},
            {clamp_index(first + int64_t{1}, axis.in), r}};
  std::array<Expr, 4> weights = cubic_weights(r, spec.cubic_a);
  std::vector<Tap> taps;
  Expr total;
  for (int64_t t = 0; t < 4; ++t) {
    Expr at = first + (t - 1);
    Expr w = weights[static_cast<size_t>(t)];
    if (spec.exclude_outside) {
      w = ir::select(at >= int64_t{0} && at < axis.in, w, f64(0));
      total = total.defined() ? total + w : w;
    }
    taps.push_back({clamp_index(at, axis.in), w});
  }
  if (spec.exclude_outside)
    for (Tap& tap : taps) tap.weight = tap.weight / total;
  return taps;
}

/// The weighted sum over the taps of axes d.. (at[..d] fixed); the element itself where
/// every remaining axis has a single unweighted tap.
Expr combine(const te::Tensor& x, const std::vector<std::vector<Tap>>& taps, size_t d,
             std::vector<Expr>& at) {
  if (d == taps.size()) return x(at);
  if (taps[d].size() == 1 && !taps[d][0].weight.defined()) {
    at[d] = taps[d][0].index;
    return combine(x, taps, d + 1, at);
  }
  Expr total;
  for (const Tap& tap : taps[d]) {
    at[d] = tap.index;
    Expr term = tap.weight * ir::cast(ir::DataType::Float(64), combine(x, taps, d + 1, at));
    total = total.defined() ? total + term : term;
  }
  return total;
}

}  // namespace

Expr f64(double value) {
  return ir::make_float(value, ir::DataType::Float(64));
}

std::array<Expr, 4> cubic_weights(const Expr& r, double a) {
  // Keys' kernel: ((a + 2) d - (a + 3)) d^2 + 1 for d <= 1, ((a d - 5a) d + 8a) d - 4a for
  // 1 < d < 2, at the distances d of the four taps.
  auto near = [&](const Expr& d) { return ((f64(a + 2) * d - f64(a + 3)) * d) * d + f64(1); };
  auto far = [&](const Expr& d) {
    return ((f64(a) * d - f64(5 * a)) * d + f64(8 * a)) * d - f64(4 * a);
  };
  return {far(f64(1) + r), near(r), near(f64(1) - r), far(f64(2) - r)};
}

te::Tensor resample(const te::Tensor& x, const ResampleSpec& spec, const std::string& name) {
  std::vector<int64_t> out;
  for (const ResampleAxis& axis : spec.axes) out.push_back(axis.out);
  auto body = [&](const std::vector<Var>& p) {
    std::vector<Expr> outside;
    std::vector<std::vector<Tap>> taps;
    for (size_t d = 0; d < p.size(); ++d)
      taps.push_back(axis_taps(spec, spec.axes[d], p[d], outside));
    std::vector<Expr> at(p.size());
    Expr value = ir::cast(x.dtype(), combine(x, taps, 0, at));
    if (outside.empty()) return value;
    Expr any = outside[0];
    for (size_t k = 1; k < outside.size(); ++k) any = any || outside[k];
    return ir::select(any, ir::make_const(x.dtype(), spec.extrapolation), value);
  };
  return te::compute(shape_exprs(out), body, name);
}

}  // namespace tessel::ops::index

// Resampling of N-d tensors (see resample.h).
#include "ops/index/resample.h"

#include <algorithm>
#include <functional>

#include "ops/index/index_common.h"
#include "ops/op_util.h"
#include "schedules/cpu/generic.h"
#include "te/dag.h"

namespace tessel::ops::index {
namespace {

using ir::Expr;
using te::Var;

/// The name suffix of a separable resampling's stages along one axis (schedule_resample).
constexpr const char* kAxisStageSuffix = ".resampled";

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
  return exact && axis.in == axis.out && axis.scale() == 1;
}

/// `v` divided by the axis's scale (v * 1 / s is v / s exactly for a scale given as such).
Expr unscale(const Expr& v, const ResampleAxis& axis) {
  return v * f64(axis.scale_denominator) / f64(axis.scale_numerator);
}

/// The input coordinate (float64) of output coordinate `x` on `axis`.
Expr source_coordinate(const ResampleSpec& spec, const ResampleAxis& axis, const Var& x) {
  Expr xf = ir::cast(ir::DataType::Float(64), x);
  bool unit = axis.length_minus_one == 0;
  double last = static_cast<double>(axis.in - 1);
  switch (spec.coordinates) {
    case CoordinateMode::HalfPixel:
      return unscale(xf + f64(0.5), axis) - f64(0.5);
    case CoordinateMode::PytorchHalfPixel:
      return unit ? f64(-0.5) : unscale(xf + f64(0.5), axis) - f64(0.5);
    case CoordinateMode::AlignCorners:
      return unit ? f64(0) : xf * f64(last) / f64(axis.length_minus_one);
    case CoordinateMode::Asymmetric:
      return unscale(xf, axis);
    case CoordinateMode::TfHalfPixelForNn:
      return unscale(xf + f64(0.5), axis);
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

/// The taps of one axis as tables over its output coordinates: stages that read nothing, so
/// the compiler evaluates them once (compiler/fold_stages) and an output element reads its
/// taps instead of computing them.
struct AxisTables {
  bool identity = true;
  std::vector<te::Tensor> index, weight;  ///< per tap (weight undefined: the only tap)
  te::Tensor outside;                     ///< TfCropAndResize: 1 where outside the input

  std::vector<Tap> taps_at(const Var& x) const {
    if (identity) return {{x, Expr()}};
    std::vector<Tap> taps;
    for (size_t t = 0; t < index.size(); ++t)
      taps.push_back({index[t](x), weight[t].defined() ? weight[t](x) : Expr()});
    return taps;
  }
};

AxisTables tabulate(const ResampleSpec& spec, const ResampleAxis& axis, const std::string& prefix) {
  AxisTables tables;
  if (is_identity(spec, axis)) return tables;
  tables.identity = false;
  auto table = [&](const std::string& what, const std::function<Expr(const Var&)>& value_at) {
    return te::compute({Expr(axis.out)}, [&](Var c) { return value_at(c); }, prefix + what,
                       {"c"});
  };
  // The taps of coordinate c, and the condition that c lies outside the input.
  auto taps_at = [&](const Var& c) {
    std::vector<Expr> outside;
    std::vector<Tap> taps = axis_taps(spec, axis, c, outside);
    return std::pair{taps, outside};
  };
  std::vector<Tap> sample = taps_at(Var("c")).first;
  for (size_t t = 0; t < sample.size(); ++t) {
    tables.index.push_back(table(".index" + std::to_string(t), [&](const Var& c) {
      return taps_at(c).first[t].index;
    }));
    tables.weight.push_back(sample[t].weight.defined()
                                ? table(".weight" + std::to_string(t),
                                        [&](const Var& c) { return taps_at(c).first[t].weight; })
                                : te::Tensor());
  }
  if (spec.coordinates == CoordinateMode::TfCropAndResize)
    tables.outside = table(".outside", [&](const Var& c) {
      return ir::cast(ir::DataType::Int(32), taps_at(c).second.at(0));
    });
  return tables;
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
  std::vector<AxisTables> tables;
  std::vector<size_t> resampled;
  for (size_t d = 0; d < spec.axes.size(); ++d) {
    tables.push_back(tabulate(spec, spec.axes[d], name + ".axis" + std::to_string(d)));
    if (!tables.back().identity) resampled.push_back(d);
  }
  // Linear and cubic resampling is separable: every resampled axis but the outermost is
  // resampled into a float64 stage of its own, the innermost first (the sums a single pass
  // would form innermost: the result is the same to the bit), so that only the small
  // first stage gathers along rows and the others read whole rows.
  te::Tensor source = x;
  std::vector<int64_t> shape = te::static_shape(x);
  bool separable = spec.interpolation != Interpolation::Nearest && resampled.size() >= 2;
  auto taps_of = [&](const std::vector<Var>& p, const std::vector<size_t>& axes) {
    std::vector<std::vector<Tap>> taps;
    for (size_t d = 0; d < p.size(); ++d) {
      bool listed = std::find(axes.begin(), axes.end(), d) != axes.end();
      taps.push_back(listed ? tables[d].taps_at(p[d]) : std::vector<Tap>{{p[d], Expr()}});
    }
    return taps;
  };
  for (size_t k = separable ? resampled.size() - 1 : 0; k >= 1; --k) {
    size_t d = resampled[k];
    shape[d] = spec.axes[d].out;
    te::Tensor previous = source;
    source = te::compute(
        shape_exprs(shape),
        [&](const std::vector<Var>& p) {
          std::vector<std::vector<Tap>> taps = taps_of(p, {d});
          std::vector<Expr> at(p.size());
          return combine(previous, taps, 0, at);
        },
        name + ".axis" + std::to_string(d) + kAxisStageSuffix);
  }
  std::vector<size_t> last = separable ? std::vector<size_t>{resampled[0]} : resampled;
  auto body = [&](const std::vector<Var>& p) {
    std::vector<std::vector<Tap>> taps = taps_of(p, last);
    std::vector<Expr> at(p.size());
    Expr value = ir::cast(x.dtype(), combine(source, taps, 0, at));
    Expr any;
    for (size_t d = 0; d < p.size(); ++d)
      if (tables[d].outside.defined()) {
        Expr outside = tables[d].outside(p[d]) != 0;
        any = any.defined() ? any || outside : outside;
      }
    if (!any.defined()) return value;
    return ir::select(any, ir::make_const(x.dtype(), spec.extrapolation), value);
  };
  std::vector<int64_t> out;
  for (const ResampleAxis& axis : spec.axes) out.push_back(axis.out);
  return te::compute(shape_exprs(out), body, name);
}

void schedule_resample(schedule::Schedule& s, const std::vector<te::Tensor>& outputs,
                       const target::Target& target) {
  const std::string suffix = kAxisStageSuffix;
  for (const te::Operation& op : te::topological_order(outputs))
    if (op->name.size() > suffix.size() &&
        op->name.compare(op->name.size() - suffix.size(), suffix.size(), suffix) == 0)
      schedules::schedule_generic(s, {op->output(0)}, target);
  schedules::schedule_generic(s, outputs, target);
}

}  // namespace tessel::ops::index

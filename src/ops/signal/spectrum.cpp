// DFT and STFT: discrete Fourier transforms as one reduction each. Every output element is
// sum over n of sample(n) * e^(-+2 pi i k n / N), its real and imaginary parts side by side
// in the last axis; the twiddle angle takes k * n mod N exactly (integers), and the sums run
// in float64.
#include <numbers>

#include "ops/op_def.h"
#include "ops/op_util.h"
#include "ops/shape/shape_ops.h"
#include "ops/signal/signal_ops.h"
#include "te/compute.h"

namespace tessel::ops::signal {
namespace {

using graph::AttrKind;
using graph::TensorType;

/// Reads part `part` (0 real, 1 imaginary) of sample `n` for the output element at `index`.
using SampleFn = std::function<ir::Expr(const std::vector<te::Var>& index, ir::Expr n, int part)>;

/// A transform of `length` points over `terms` samples (fewer than length: zero-padded)
/// into `shape` (its last axis the real and imaginary parts), the frequency index on axis
/// `k_axis`.
struct Transform {
  std::vector<int64_t> shape;
  int k_axis = 0;
  int64_t length = 0, terms = 0;
  bool complex_samples = false, inverse = false;
};

te::Tensor transform(const Transform& t, const SampleFn& sample, ir::DataType dtype) {
  ir::DataType f64 = ir::DataType::Float(64);
  te::IterVar n = te::reduce_axis(ir::Expr(t.terms), "n");
  double step = 2 * std::numbers::pi / static_cast<double>(t.length);
  // e^(-i angle) forward, e^(+i angle) inverse (scaled by 1 / length).
  double sign = t.inverse ? -1.0 : 1.0;
  te::Tensor sums = te::compute_body(
      shape_exprs(t.shape),
      [&](const std::vector<te::Var>& index) {
        ir::Expr k = index[static_cast<size_t>(t.k_axis)];
        ir::DataType i64 = ir::DataType::Int(64);
        ir::Expr angle =
            ir::cast(f64, (ir::cast(i64, k) * ir::cast(i64, n.var)) % ir::Expr(t.length)) *
            ir::Expr(step);
        ir::Expr re = ir::cast(f64, sample(index, n.var, 0));
        ir::Expr im = t.complex_samples ? ir::cast(f64, sample(index, n.var, 1)) : ir::Expr(0.0);
        ir::Expr cos = ir::cos(angle), sin = ir::sin(angle) * ir::Expr(sign);
        ir::Expr part = index.back();
        return te::sum(
            ir::select(part == ir::Expr(int64_t{0}), re * cos + im * sin, im * cos - re * sin),
            {n});
      },
      "spectrum_sums");
  double scale = t.inverse ? 1.0 / static_cast<double>(t.length) : 1.0;
  return te::compute_body(
      shape_exprs(t.shape),
      [&](const std::vector<te::Var>& index) {
        std::vector<ir::Expr> at(index.begin(), index.end());
        return ir::cast(dtype, sums(at) * ir::Expr(scale));
      },
      "spectrum");
}

/// Fails unless the last axis of input 0 holds 1 (real) or 2 (complex) parts.
bool complex_signal(const OpContext& ctx, const std::vector<int64_t>& shape, size_t min_rank) {
  if (shape.size() < min_rank || (shape.back() != 1 && shape.back() != 2))
    ctx.fail("input 0 " + shape::shape_text(shape) + " must have at least " +
             std::to_string(min_rank) + " axes, the last of 1 (real) or 2 (complex) parts");
  return shape.back() == 2;
}

// ---- DFT --------------------------------------------------------------------------------

Transform dft_transform(const OpContext& ctx) {
  std::vector<int64_t> in = ctx.input_shape(0);
  Transform t;
  t.complex_samples = complex_signal(ctx, in, 3);
  auto rank = static_cast<int64_t>(in.size());
  // Any axis but the parts': [-rank, -2] or [0, rank - 2].
  int64_t axis = ctx.attr_int("axis");
  if (axis < -rank || axis > rank - 2 || axis == -1)
    ctx.fail("attribute 'axis' " + std::to_string(axis) + " must name an axis of " +
             shape::shape_text(in) + " other than the last (the parts)");
  t.k_axis = static_cast<int>(axis < 0 ? axis + rank : axis);
  int64_t samples = in[static_cast<size_t>(t.k_axis)];
  t.length = ctx.has_input(1) ? scalar_input(ctx, 1, "dft_length", 1) : samples;
  t.terms = std::min(t.length, samples);
  t.inverse = ctx.attr_int("inverse") != 0;
  bool onesided = ctx.attr_int("onesided") != 0;
  if (onesided && t.inverse) ctx.fail("an inverse transform cannot be onesided");
  t.shape = in;
  t.shape[static_cast<size_t>(t.k_axis)] = onesided ? t.length / 2 + 1 : t.length;
  t.shape.back() = 2;
  shape::check_shape(ctx, t.shape, "the output");
  return t;
}

OpDef dft_op() {
  OpDef def;
  def.name = "DFT";
  def.since_version = 17;
  def.attributes = {{"axis", AttrKind::Int, graph::Attribute::of_int(1)},
                    {"inverse", AttrKind::Int, graph::Attribute::of_int(0)},
                    {"onesided", AttrKind::Int, graph::Attribute::of_int(0)}};
  def.pattern = PatternKind::Opaque;
  def.value_inputs = {1};
  def.infer = [](const OpContext& ctx) {
    return std::vector<TensorType>{
        TensorType::of(ctx.input_type(0).dtype, dft_transform(ctx).shape)};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    Transform t = dft_transform(ctx);
    SampleFn sample = [&](const std::vector<te::Var>& index, ir::Expr n, int part) {
      std::vector<ir::Expr> at(index.begin(), index.end());
      at[static_cast<size_t>(t.k_axis)] = n;
      at.back() = ir::Expr(int64_t{part});
      return in[0](at);
    };
    return std::vector<te::Tensor>{transform(t, sample, ctx.input_type(0).dtype)};
  };
  return def;
}

// ---- STFT -------------------------------------------------------------------------------

/// STFT's frames: signal [batch, length, parts] -> [batch, frames, bins, 2].
struct Frames {
  Transform transform;
  int64_t step = 0;
  bool windowed = false;
};

Frames stft_frames(const OpContext& ctx) {
  std::vector<int64_t> in = ctx.input_shape(0);
  Frames f;
  f.transform.complex_samples = complex_signal(ctx, in, 3);
  if (in.size() != 3)
    ctx.fail("input 'signal' must be [batch, length, parts], found " + shape::shape_text(in));
  f.step = scalar_input(ctx, 1, "frame_step", 1);
  f.windowed = ctx.has_input(2);
  int64_t length = 0;
  if (f.windowed) {
    std::vector<int64_t> window = ctx.input_shape(2);
    if (window.size() != 1)
      ctx.fail("input 'window' must be 1-d, found " + shape::shape_text(window));
    length = window[0];
  }
  if (ctx.has_input(3)) {
    int64_t given = scalar_input(ctx, 3, "frame_length", 1);
    if (f.windowed && given != length)
      ctx.fail("frame_length " + std::to_string(given) + " differs from the window's length " +
               std::to_string(length));
    length = given;
  }
  if (length < 1) ctx.fail("needs a window or a frame_length");
  if (length > in[1])
    ctx.fail("frames of " + std::to_string(length) + " samples do not fit a signal of " +
             std::to_string(in[1]));
  bool onesided = ctx.attr_int("onesided") != 0;
  f.transform.length = f.transform.terms = length;
  f.transform.k_axis = 2;
  f.transform.shape = {in[0], (in[1] - length) / f.step + 1, onesided ? length / 2 + 1 : length, 2};
  shape::check_shape(ctx, f.transform.shape, "the output");
  return f;
}

OpDef stft_op() {
  OpDef def;
  def.name = "STFT";
  def.since_version = 17;
  def.attributes = {{"onesided", AttrKind::Int, graph::Attribute::of_int(1)}};
  def.pattern = PatternKind::Opaque;
  def.value_inputs = {1, 3};
  def.infer = [](const OpContext& ctx) {
    return std::vector<TensorType>{
        TensorType::of(ctx.input_type(0).dtype, stft_frames(ctx).transform.shape)};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    Frames f = stft_frames(ctx);
    SampleFn sample = [&](const std::vector<te::Var>& index, ir::Expr n, int part) {
      ir::Expr at = index[1] * ir::Expr(f.step) + n;
      ir::Expr x = in[0]({index[0], at, ir::Expr(int64_t{part})});
      return f.windowed ? x * in[2]({n}) : x;
    };
    return std::vector<te::Tensor>{transform(f.transform, sample, ctx.input_type(0).dtype)};
  };
  return def;
}

}  // namespace

void register_spectrum_ops(OpRegistry& registry) {
  registry.add(dft_op());
  registry.add(stft_op());
}

}  // namespace tessel::ops::signal

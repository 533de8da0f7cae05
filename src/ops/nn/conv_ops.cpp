// Conv and ConvTranspose (float): both on conv_nd; ConvTranspose as the convolution of its
// input spread out by the strides with the flipped, transposed kernel. 2-d float32
// convolutions that fit take the tuned conv2d compute and schedule (ops/conv2d.h,
// schedules/cpu/conv2d.h).
#include "ops/conv2d.h"
#include "ops/depthwise_conv2d.h"
#include "ops/nn/conv.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_util.h"
#include "schedules/cpu/contraction.h"
#include "schedules/cpu/conv2d.h"
#include "schedules/cpu/depthwise_conv2d.h"
#include "schedules/cpu/generic.h"

namespace tessel::ops::nn {
namespace {

using graph::Attribute;
using graph::AttrKind;

constexpr const char* kConv = kConvStage;

std::vector<AttrSpec> conv_attributes(bool transposed) {
  std::vector<AttrSpec> attrs = {{"auto_pad", AttrKind::String, Attribute::of_string("NOTSET")},
                                 {"dilations", AttrKind::Ints, std::nullopt},
                                 {"group", AttrKind::Int, Attribute::of_int(1)},
                                 {"kernel_shape", AttrKind::Ints, std::nullopt},
                                 {"pads", AttrKind::Ints, std::nullopt},
                                 {"strides", AttrKind::Ints, std::nullopt}};
  if (transposed) {
    attrs.push_back({"output_padding", AttrKind::Ints, std::nullopt});
    attrs.push_back({"output_shape", AttrKind::Ints, std::nullopt});
  }
  return attrs;
}

ConvShape checked_shape(const OpContext& ctx, bool transposed) {
  check_dtype(ctx, 0, float_types());
  if (ctx.input_type(1).dtype != ctx.input_type(0).dtype ||
      (ctx.has_input(2) && ctx.input_type(2).dtype != ctx.input_type(0).dtype))
    ctx.fail("inputs must share the element type of X, " + ctx.input_type(0).dtype.to_string());
  ConvShape shape = transposed ? conv_transpose_shape(ctx) : conv_shape(ctx, 0, 1);
  check_channel_input(ctx, 2, shape.out_channels, "bias B");
  return shape;
}

/// The convolution `y` (accumulated) plus the bias, in the element type `dtype`.
te::Tensor add_bias(const te::Tensor& y, const te::Tensor& bias, ir::DataType dtype) {
  if (!bias.defined()) return cast_to(y, dtype, std::string(kConv) + ".cast");
  return te::compute(
      y.shape(),
      [&](const std::vector<te::Var>& index) {
        std::vector<ir::Expr> at(index.begin(), index.end());
        return ir::cast(dtype, y(at) + ir::cast(y.dtype(), bias(index[1])));
      },
      std::string(kConv) + ".bias");
}

te::Tensor optional_input(const std::vector<te::Tensor>& in, size_t i) {
  return i < in.size() ? in[i] : te::Tensor();
}

/// The convolution of `shape` of x by weight w ([M, C / groups, kernel...]) as the stage
/// kConv: the tuned conv2d (the data padded first unless the pads are symmetric) where it
/// applies, else conv_nd accumulating in the accumulation type.
te::Tensor convolve(const OpContext& ctx, const ConvShape& shape, const te::Tensor& x,
                    const te::Tensor& w) {
  ir::DataType dtype = x.dtype();
  const Window& window = shape.window;
  bool depthwise = use_depthwise_conv2d(shape, dtype);
  if (depthwise || use_tuned_conv2d(shape, dtype)) {
    te::Tensor data = x;
    int64_t pad = window.pads_begin[0];
    if (!symmetric_pads(window)) {
      data = pad_data(Operand::of(x), window, std::string(kConv) + ".data");
      pad = 0;
    }
    if (depthwise) return depthwise_conv2d_nchw(data, w, window.strides[0], pad, kConv);
    return conv2d_nchw(
        data, w, {window.strides[0], pad, schedules::conv2d_weight_block(ctx.target())}, kConv);
  }
  ir::DataType acc = accumulation_type(dtype);
  return conv_nd(shape, Operand::of(x, acc), Operand::of(w, acc), kConv);
}

std::vector<te::Tensor> conv_compute(const OpContext& ctx, const std::vector<te::Tensor>& in) {
  te::Tensor y = convolve(ctx, checked_shape(ctx, false), in[0], in[1]);
  return {add_bias(y, optional_input(in, 2), in[0].dtype())};
}

/// The forward convolution that a ConvTranspose of `shape` computes: stride 1, no pads,
/// over the input spread out by the strides (see conv_transpose_compute).
ConvShape forward_of(const ConvShape& shape) {
  ConvShape forward = shape;
  Window& w = forward.window;
  for (size_t d = 0; d < w.rank(); ++d) w.input[d] = w.output[d] + w.span(d) - 1;
  w.strides.assign(w.rank(), 1);
  w.pads_begin.assign(w.rank(), 0);
  w.pads_end.assign(w.rank(), 0);
  return forward;
}

/// ConvTranspose: out[o] = sum_k up[o + k * dilation] * flipped[k] where up holds the input
/// at positions spread by the strides (zeros between, shifted by the pads) and flipped is
/// the kernel reversed with its input and output channels exchanged (per group).
std::vector<te::Tensor> conv_transpose_compute(const OpContext& ctx,
                                               const std::vector<te::Tensor>& in) {
  ConvShape shape = checked_shape(ctx, true);
  ConvShape forward = forward_of(shape);
  const Window& w = shape.window;
  size_t rank = w.rank();
  const te::Tensor &x = in[0], &weight = in[1];

  std::vector<int64_t> up_shape = {shape.batch, shape.in_channels};
  up_shape.insert(up_shape.end(), forward.window.input.begin(), forward.window.input.end());
  te::Tensor up = te::compute(
      shape_exprs(up_shape),
      [&](const std::vector<te::Var>& index) {
        std::vector<ir::Expr> at = {index[0], index[1]};
        ir::Expr valid = ir::make_bool(true);
        for (size_t d = 0; d < rank; ++d) {
          ir::Expr q = index[d + 2] + (w.pads_begin[d] - w.span(d) + 1);
          ir::Expr i = q / w.strides[d];
          valid = valid && q >= 0 && q % w.strides[d] == 0 && i < w.input[d];
          at.push_back(ir::max(ir::min(i, w.input[d] - 1), int64_t{0}));
        }
        return ir::select(valid, x(at), ir::make_const(x.dtype(), 0));
      },
      std::string(kConv) + ".up");

  int64_t group_in = shape.in_channels / shape.groups;
  int64_t group_out = shape.out_channels / shape.groups;
  std::vector<int64_t> flipped_shape = {shape.out_channels, group_in};
  flipped_shape.insert(flipped_shape.end(), w.kernel.begin(), w.kernel.end());
  te::Tensor flipped = te::compute(
      shape_exprs(flipped_shape),
      [&](const std::vector<te::Var>& index) {
        ir::Expr m = index[0];
        std::vector<ir::Expr> at = {m / group_out * group_in + index[1], m % group_out};
        for (size_t d = 0; d < rank; ++d) at.push_back(w.kernel[d] - 1 - index[d + 2]);
        return weight(at);
      },
      std::string(kConv) + ".weight");
  te::Tensor y = convolve(ctx, forward, up, flipped);
  return {add_bias(y, optional_input(in, 2), x.dtype())};
}

void schedule_conv(const OpContext& ctx, schedule::Schedule& s,
                   const std::vector<te::Tensor>& outputs, bool transposed) {
  ConvShape shape = transposed ? forward_of(checked_shape(ctx, true)) : checked_shape(ctx, false);
  ir::DataType dtype = ctx.input_type(0).dtype;
  if (use_depthwise_conv2d(shape, dtype) || use_tuned_conv2d(shape, dtype)) {
    te::Tensor conv = s.tensor(kConv);
    // Whole channel blocks are computed; the stage dropping the extra ones is read in place.
    std::string drop = std::string(kConv) + ".k";
    if (has_stage(s, drop) && !s.stage(drop).is_output) s.compute_inline(drop);
    if (use_depthwise_conv2d(shape, dtype))
      schedules::schedule_depthwise_conv2d_cpu(s, conv, ctx.target());
    else
      schedules::schedule_conv2d_cpu(s, conv, ctx.target(), schedules::default_conv2d_config(),
                                     elementwise_epilogue(s, conv, shape.output, outputs));
    // Padded data is read once by the tuned schedule's own padding stage.
    if (has_stage(s, std::string(kConv) + ".data")) s.compute_inline(std::string(kConv) + ".data");
  } else {
    schedules::schedule_contraction(s, s.tensor(kConv), ctx.target());
  }
  schedules::schedule_generic(s, outputs, ctx.target());
}

OpDef conv_def(bool transposed) {
  OpDef def;
  def.name = transposed ? "ConvTranspose" : "Conv";
  def.since_version = 1;
  def.attributes = conv_attributes(transposed);
  def.pattern = PatternKind::OutFusable;
  def.infer = [transposed](const OpContext& ctx) {
    return std::vector{
        graph::TensorType::of(ctx.input_type(0).dtype, checked_shape(ctx, transposed).output)};
  };
  if (transposed)
    def.compute = conv_transpose_compute;
  else
    def.compute = conv_compute;
  def.schedule = [transposed](const OpContext& ctx, schedule::Schedule& s,
                              const std::vector<te::Tensor>& outputs) {
    schedule_conv(ctx, s, outputs, transposed);
  };
  return def;
}

}  // namespace

void register_conv_ops(OpRegistry& registry) {
  registry.add(conv_def(false));
  registry.add(conv_def(true));
}

}  // namespace tessel::ops::nn

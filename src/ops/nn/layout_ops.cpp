// tessel's operators of the blocked channel layout NCHW[x]c (domain "tessel"), placed by
// passes::convert_conv_layout:
//  - LayoutToNCHWc (block x): [N, C, H, W] -> [N, ceil(C/x), H, W, x], padding channels zero;
//  - LayoutFromNCHWc (channels C): back to [N, C, H, W], the padding channels dropped;
//  - Conv2dNCHWc (stride, pad, dilation, block, depthwise, groups, winograd): a 2-d float32
//    convolution from NCHW or NCHW[xi]c data to NCHW[x]c (ops/conv2d_nchwc.h; with
//    winograd = m > 0, F(m x m, 3 x 3) of ops/conv2d_winograd.h; their schedules in
//    schedules/cpu/) plus an optional bias [K];
//    its padding channels are zero;
//  - ChannelGatherNCHWc (channels [C1, ...], groups g, start s, count k, block x): channels
//    s to s + k - 1 of the concatenation of blocked inputs of C1, ... channels (any blocks),
//    shuffled in g groups first when g > 1 (channel c of the shuffle is channel
//    (c % g) * (C / g) + c / g), in blocks of x: a Concat, channel shuffle or Slice along
//    the channels that does not fall on whole blocks.
#include "ops/conv2d_nchwc.h"
#include "ops/conv2d_winograd.h"
#include "ops/nn/conv.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_util.h"
#include "schedules/cpu/conv2d_nchwc.h"
#include "schedules/cpu/conv2d_winograd.h"
#include "schedules/cpu/generic.h"

namespace tessel::ops::nn {
namespace {

using graph::AttrKind;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// A required positive integer attribute.
int64_t positive_attr(const OpContext& ctx, const char* name) {
  int64_t v = ctx.attr_int(name);
  if (v <= 0) ctx.fail("attribute '" + std::string(name) + "' is " + std::to_string(v) +
                       "; must be positive");
  return v;
}

// ---- LayoutToNCHWc ----------------------------------------------------------------------

std::vector<int64_t> to_nchwc_shape(const OpContext& ctx) {
  std::vector<int64_t> x = ctx.input_shape(0);
  if (x.size() != 4) ctx.fail("input " + shape_text(x) + " must be [N, C, H, W]");
  int64_t block = positive_attr(ctx, "block");
  return {x[0], ceil_div(x[1], block), x[2], x[3], block};
}

OpDef to_nchwc_def() {
  OpDef def;
  def.name = "LayoutToNCHWc";
  def.domain = "tessel";
  def.attributes = {{"block", AttrKind::Int, std::nullopt, true}};
  def.pattern = PatternKind::Injective;
  def.infer = [](const OpContext& ctx) {
    return std::vector{graph::TensorType::of(ctx.input_type(0).dtype, to_nchwc_shape(ctx))};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    int64_t channels = ctx.input_shape(0)[1], block = ctx.attr_int("block");
    const te::Tensor& x = in[0];
    return std::vector{te::compute(
        shape_exprs(to_nchwc_shape(ctx)),
        [&](te::Var n, te::Var cb, te::Var h, te::Var w, te::Var ci) {
          ir::Expr c = cb * block + ci;
          return ir::select(c < channels, x(n, ir::min(c, channels - 1), h, w),
                            ir::make_const(x.dtype(), 0));
        },
        "to_nchwc", {"n", "cb", "h", "w", "ci"})};
  };
  return def;
}

// ---- LayoutFromNCHWc --------------------------------------------------------------------

std::vector<int64_t> from_nchwc_shape(const OpContext& ctx) {
  std::vector<int64_t> x = ctx.input_shape(0);
  if (x.size() != 5) ctx.fail("input " + shape_text(x) + " must be [N, C/x, H, W, x]");
  int64_t channels = positive_attr(ctx, "channels");
  if (ceil_div(channels, x[4]) != x[1])
    ctx.fail("attribute 'channels' is " + std::to_string(channels) + " but the input " +
             shape_text(x) + " holds " + std::to_string(x[1]) + " blocks of " +
             std::to_string(x[4]));
  return {x[0], channels, x[2], x[3]};
}

OpDef from_nchwc_def() {
  OpDef def;
  def.name = "LayoutFromNCHWc";
  def.domain = "tessel";
  def.attributes = {{"channels", AttrKind::Int, std::nullopt, true}};
  def.pattern = PatternKind::Injective;
  def.infer = [](const OpContext& ctx) {
    return std::vector{graph::TensorType::of(ctx.input_type(0).dtype, from_nchwc_shape(ctx))};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    int64_t block = ctx.input_shape(0)[4];
    const te::Tensor& x = in[0];
    return std::vector{te::compute(
        shape_exprs(from_nchwc_shape(ctx)),
        [&](te::Var n, te::Var c, te::Var h, te::Var w) { return x(n, c / block, h, w, c % block); },
        "from_nchwc", {"n", "c", "h", "w"})};
  };
  return def;
}

// ---- ChannelGatherNCHWc -----------------------------------------------------------------

/// The most output channels (padding included) whose gather is unrolled across all blocks.
constexpr int64_t kUnrolledGatherChannels = 256;

struct ChannelGather {
  std::vector<int64_t> channels;  ///< of each input
  int64_t total = 0, groups = 1, start = 0, count = 0, block = 0;
  std::vector<int64_t> output;
};

ChannelGather channel_gather(const OpContext& ctx) {
  ChannelGather g;
  g.channels = ctx.attr_ints("channels");
  if (g.channels.size() != ctx.num_inputs() || g.channels.empty())
    ctx.fail("attribute 'channels' has " + std::to_string(g.channels.size()) + " entries for " +
             std::to_string(ctx.num_inputs()) + " inputs");
  std::vector<int64_t> first = ctx.input_shape(0);
  for (size_t k = 0; k < g.channels.size(); ++k) {
    std::vector<int64_t> x = ctx.input_shape(k);
    if (x.size() != 5 || g.channels[k] <= 0 || ceil_div(g.channels[k], x[4]) != x[1] ||
        x[0] != first[0] || x[2] != first[2] || x[3] != first[3] ||
        ctx.input_type(k).dtype != ctx.input_type(0).dtype)
      ctx.fail("input " + std::to_string(k) + " " + shape_text(x) + " is not " +
               std::to_string(g.channels[k]) + " channels in blocks of the first input's " +
               shape_text(first) + " images");
    g.total += g.channels[k];
  }
  g.groups = positive_attr(ctx, "groups");
  g.start = ctx.attr_int("start");
  g.count = positive_attr(ctx, "count");
  g.block = positive_attr(ctx, "block");
  if (g.total % g.groups != 0 || g.start < 0 || g.start + g.count > g.total)
    ctx.fail("channels " + std::to_string(g.start) + " to " +
             std::to_string(g.start + g.count - 1) + " of " + std::to_string(g.total) + " in " +
             std::to_string(g.groups) + " groups are not a window of whole groups' channels");
  g.output = {first[0], ceil_div(g.count, g.block), first[2], first[3], g.block};
  return g;
}

OpDef channel_gather_def() {
  OpDef def;
  def.name = "ChannelGatherNCHWc";
  def.domain = "tessel";
  def.attributes = {{"channels", AttrKind::Ints, std::nullopt, true},
                    {"groups", AttrKind::Int, graph::Attribute::of_int(1)},
                    {"start", AttrKind::Int, graph::Attribute::of_int(0)},
                    {"count", AttrKind::Int, std::nullopt, true},
                    {"block", AttrKind::Int, std::nullopt, true}};
  def.pattern = PatternKind::Injective;
  def.infer = [](const OpContext& ctx) {
    return std::vector{graph::TensorType::of(ctx.input_type(0).dtype, channel_gather(ctx).output)};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& in) {
    ChannelGather g = channel_gather(ctx);
    return std::vector{te::compute(
        shape_exprs(g.output),
        [&](te::Var n, te::Var cb, te::Var h, te::Var w, te::Var ci) {
          ir::Expr c = cb * g.block + ci;
          ir::Expr t = ir::min(c, g.count - 1) + g.start;  // in the concatenation, shuffled
          ir::Expr z = g.groups == 1 ? t : (t % g.groups) * (g.total / g.groups) + t / g.groups;
          // The input holding channel z: the last one whose first channel is at most z.
          ir::Expr value;
          int64_t offset = g.total;
          for (size_t k = in.size(); k-- > 0;) {
            offset -= g.channels[k];
            int64_t block = ctx.input_shape(k)[4];
            ir::Expr local = ir::min(ir::max(z - offset, 0), g.channels[k] - 1);
            ir::Expr read = in[k](n, local / block, h, w, local % block);
            value = value.defined() ? ir::select(z < offset + g.channels[k], read, value) : read;
          }
          return ir::select(c < g.count, value, ir::make_const(in[0].dtype(), 0));
        },
        "channel_gather", {"n", "cb", "h", "w", "ci"})};
  };
  // Each output channel reads one input channel found by index arithmetic on the channel
  // alone. With the channels innermost and unrolled (all of them where they are few) that
  // arithmetic folds at compile time: a pixel's channels become plain copies from fixed
  // offsets (ShuffleNetV2's gathers: 10-30x faster than with the pixels innermost).
  def.schedule = [](const OpContext&, schedule::Schedule& s,
                    const std::vector<te::Tensor>& outputs) {
    const te::Tensor& out = outputs[0];
    std::vector<int64_t> shape = te::static_shape(out);
    s.reorder(out, {"n", "h", "w", "cb", "ci"});
    std::string pixel = s.fuse(out, s.fuse(out, "n", "h"), "w");
    s.unroll(out, "ci");
    if (shape[1] * shape[4] <= kUnrolledGatherChannels) s.unroll(out, "cb");
    if (te::shape_size(shape) >= schedules::kParallelMinElements) s.parallel(out, pixel);
  };
  return def;
}

// ---- Conv2dNCHWc ------------------------------------------------------------------------

struct NchwcConv {
  Conv2dNchwcParams params;
  int64_t winograd = 0;  ///< output tile of the Winograd form; 0: direct
  int64_t out_channels = 0;
  std::vector<int64_t> output;
};

NchwcConv nchwc_conv(const OpContext& ctx) {
  check_dtype(ctx, 0, {ir::DataType::Float(32)});
  for (size_t i : {size_t{1}, size_t{2}})
    if (ctx.has_input(i) && ctx.input_type(i).dtype != ctx.input_type(0).dtype)
      ctx.fail("input " + std::to_string(i) + " has element type " +
               ctx.input_type(i).dtype.to_string() + "; the data has float32");
  std::vector<int64_t> x = ctx.input_shape(0), w = ctx.input_shape(1);
  if ((x.size() != 4 && x.size() != 5) || w.size() != 4)
    ctx.fail("data " + shape_text(x) + " must be [N, C, H, W] or [N, C/x, H, W, x] and weight " +
             shape_text(w) + " [K, C, R, S]");
  NchwcConv conv;
  Conv2dNchwcParams& p = conv.params;
  p.stride = positive_attr(ctx, "stride");
  p.block = positive_attr(ctx, "block");
  p.pad = ctx.attr_int("pad");
  p.dilation = positive_attr(ctx, "dilation");
  p.depthwise = ctx.attr_int("depthwise") != 0;
  p.groups = positive_attr(ctx, "groups");
  if (p.pad < 0) ctx.fail("attribute 'pad' is " + std::to_string(p.pad) + "; must be >= 0");
  int64_t in_block = x.size() == 5 ? x[4] : 1;
  int64_t channels = p.depthwise ? w[0] : w[1] * p.groups;
  if (p.groups > 1 && (p.depthwise || w[0] % p.groups != 0 ||
                       !grouped_conv_fits(p.groups, w[1], w[0] / p.groups, in_block, p.block)))
    ctx.fail(std::to_string(p.groups) + " groups of weight " + shape_text(w) +
             " do not fit input blocks of " + std::to_string(in_block) + " and output blocks of " +
             std::to_string(p.block) + " channels");
  if (p.depthwise && (w[1] != 1 || in_block != p.block))
    ctx.fail("a depthwise convolution takes weight [C, 1, R, S] (got " + shape_text(w) +
             ") and data blocked by 'block' (got " + shape_text(x) + ")");
  if (ceil_div(channels, in_block) != x[1])
    ctx.fail("data " + shape_text(x) + " does not hold the " + std::to_string(channels) +
             " input channels of weight " + shape_text(w));
  int64_t span_r = (w[2] - 1) * p.dilation + 1, span_s = (w[3] - 1) * p.dilation + 1;
  int64_t oh = (x[2] + 2 * p.pad - span_r) / p.stride + 1;
  int64_t ow = (x[3] + 2 * p.pad - span_s) / p.stride + 1;
  if (x[2] + 2 * p.pad < span_r || x[3] + 2 * p.pad < span_s)
    ctx.fail("kernel " + shape_text(w) + " does not fit data " + shape_text(x) + " padded by " +
             std::to_string(p.pad));
  conv.winograd = ctx.attr_int("winograd");
  if (conv.winograd != 0 &&
      (conv.winograd < 0 || conv.winograd > 6 || w[2] != 3 || w[3] != 3 || p.stride != 1 ||
       p.dilation != 1 || p.groups != 1 || p.depthwise || x.size() != 5))
    ctx.fail("attribute 'winograd' is " + std::to_string(conv.winograd) +
             "; a Winograd tile of 1 to 6 takes a 3x3 kernel (got " + shape_text(w) +
             ") of stride 1, no dilation, one group, on blocked data (got " + shape_text(x) + ")");
  conv.out_channels = w[0];
  check_channel_input(ctx, 2, w[0], "bias B");
  conv.output = {x[0], ceil_div(w[0], p.block), oh, ow, p.block};
  return conv;
}

std::vector<te::Tensor> nchwc_conv_compute(const OpContext& ctx, const std::vector<te::Tensor>& in) {
  NchwcConv shape = nchwc_conv(ctx);
  te::Tensor y = shape.winograd > 0
                     ? conv2d_winograd_nchwc(in[0], in[1], shape.params, shape.winograd, kConvStage)
                     : conv2d_nchwc(in[0], in[1], shape.params, kConvStage);
  if (in.size() < 3 || !in[2].defined()) return {y};
  // The bias in blocks (zero past the channels): evaluated by the compiler when constant.
  const te::Tensor& bias = in[2];
  int64_t k = shape.out_channels, block = shape.params.block;
  te::Tensor packed = te::compute(
      {shape.output[1], block},
      [&](te::Var kb, te::Var kk) {
        ir::Expr c = kb * block + kk;
        return ir::select(c < k, bias(ir::min(c, k - 1)), ir::make_const(bias.dtype(), 0));
      },
      std::string(kConvStage) + ".bias_packed", {"kb", "kk"});
  return {te::compute(
      y.shape(),
      [&](te::Var n, te::Var kb, te::Var h, te::Var w, te::Var kk) {
        return y(n, kb, h, w, kk) + packed(kb, kk);
      },
      std::string(kConvStage) + ".bias", {"n", "kb", "oh", "ow", "kk"})};
}

OpDef nchwc_conv_def() {
  OpDef def;
  def.name = "Conv2dNCHWc";
  def.domain = "tessel";
  def.attributes = {{"block", AttrKind::Int, std::nullopt, true},
                    {"depthwise", AttrKind::Int, graph::Attribute::of_int(0)},
                    {"dilation", AttrKind::Int, graph::Attribute::of_int(1)},
                    {"groups", AttrKind::Int, graph::Attribute::of_int(1)},
                    {"pad", AttrKind::Int, graph::Attribute::of_int(0)},
                    {"stride", AttrKind::Int, graph::Attribute::of_int(1)},
                    {"winograd", AttrKind::Int, graph::Attribute::of_int(0)}};
  def.pattern = PatternKind::OutFusable;
  def.infer = [](const OpContext& ctx) {
    return std::vector{graph::TensorType::of(ctx.input_type(0).dtype, nchwc_conv(ctx).output)};
  };
  def.compute = nchwc_conv_compute;
  def.schedule = [](const OpContext& ctx, schedule::Schedule& s,
                    const std::vector<te::Tensor>& outputs) {
    te::Tensor conv = s.tensor(kConvStage);
    NchwcConv shape = nchwc_conv(ctx);
    te::Tensor epilogue = elementwise_epilogue(s, conv, shape.output, outputs);
    if (shape.winograd > 0)
      schedules::schedule_conv2d_winograd_cpu(s, conv, ctx.target(), epilogue,
                                              schedules::conv2d_winograd_config(ctx.knobs()));
    else
      schedules::schedule_conv2d_nchwc_cpu(s, conv, ctx.target(), epilogue,
                                           schedules::conv2d_nchwc_config(ctx.knobs()));
    schedules::schedule_generic(s, outputs, ctx.target());
  };
  def.tuning_space = [](const OpContext& ctx) {
    NchwcConv conv = nchwc_conv(ctx);
    std::vector<int64_t> x = ctx.input_shape(0), w = ctx.input_shape(1);
    int64_t vectors = std::max<int64_t>(1, conv.params.block / ctx.target().float_lanes());
    if (conv.winograd > 0) {
      int64_t m = conv.winograd;
      int64_t tiles = conv.output[0] * ((conv.output[2] + m - 1) / m) * ((conv.output[3] + m - 1) / m);
      return schedules::conv2d_winograd_tuning_space(tiles, conv.output[1], vectors, x[4],
                                                     ctx.target());
    }
    int64_t in_block = x.size() == 5 ? x[4] : 1;
    int64_t in_channels = conv.params.depthwise ? w[0] : w[1] * conv.params.groups;
    int64_t in_blocks = conv.params.depthwise ? 1 : std::max<int64_t>(1, w[1] / in_block);
    return schedules::conv2d_nchwc_tuning_space(
        conv.output, vectors, in_block, in_blocks,
        conv_channels(conv.params, in_channels, conv.out_channels, in_block),
        w[2] == 1 && w[3] == 1, conv.params.pad > 0, ctx.target());
  };
  return def;
}

}  // namespace

void register_layout_ops(OpRegistry& registry) {
  registry.add(to_nchwc_def());
  registry.add(from_nchwc_def());
  registry.add(channel_gather_def());
  registry.add(nchwc_conv_def());
}

}  // namespace tessel::ops::nn

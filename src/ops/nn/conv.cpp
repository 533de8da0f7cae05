// The N-d convolution compute and the shape rules of Conv-like nodes (see conv.h).
#include "ops/nn/conv.h"

#include <algorithm>

#include "ops/op_util.h"
#include "support/error.h"

namespace tessel::ops::nn {
namespace {

std::string shapes_text(const OpContext& ctx, size_t x, size_t w) {
  return "data " + shape_text(ctx.input_shape(x)) + " and weight " + shape_text(ctx.input_shape(w));
}

/// Data [N, C, spatial...] and weight of the same rank >= 3; the group count.
int64_t check_ranks(const OpContext& ctx, size_t x, size_t w) {
  std::vector<int64_t> xs = ctx.input_shape(x), ws = ctx.input_shape(w);
  if (xs.size() < 3 || ws.size() != xs.size())
    ctx.fail(shapes_text(ctx, x, w) + " must both have rank >= 3, the same");
  int64_t groups = ctx.attr_int("group");
  if (groups < 1) ctx.fail("attribute 'group' is " + std::to_string(groups) + "; must be >= 1");
  return groups;
}

std::vector<int64_t> spatial(const std::vector<int64_t>& shape) {
  return std::vector<int64_t>(shape.begin() + 2, shape.end());
}

}  // namespace

ConvShape conv_shape(const OpContext& ctx, size_t x, size_t w) {
  ConvShape shape;
  shape.groups = check_ranks(ctx, x, w);
  std::vector<int64_t> xs = ctx.input_shape(x), ws = ctx.input_shape(w);
  shape.batch = xs[0];
  shape.in_channels = xs[1];
  shape.out_channels = ws[0];
  if (xs[1] != ws[1] * shape.groups || ws[0] % shape.groups != 0)
    ctx.fail(shapes_text(ctx, x, w) + " do not match with group " + std::to_string(shape.groups) +
             ": the weight takes " + std::to_string(ws[1] * shape.groups) +
             " input channels and needs output channels divisible by the group; found " +
             std::to_string(xs[1]) + " input and " + std::to_string(ws[0]) + " output channels");
  shape.window = forward_window(ctx, spatial(xs), kernel_extents(ctx, spatial(ws)));
  shape.output = {shape.batch, shape.out_channels};
  shape.output.insert(shape.output.end(), shape.window.output.begin(), shape.window.output.end());
  return shape;
}

ConvShape conv_transpose_shape(const OpContext& ctx) {
  ConvShape shape;
  shape.groups = check_ranks(ctx, 0, 1);
  std::vector<int64_t> xs = ctx.input_shape(0), ws = ctx.input_shape(1);
  shape.batch = xs[0];
  shape.in_channels = xs[1];
  shape.out_channels = ws[1] * shape.groups;
  if (xs[1] != ws[0] || ws[0] % shape.groups != 0)
    ctx.fail(shapes_text(ctx, 0, 1) + " do not match with group " + std::to_string(shape.groups) +
             ": expected " + std::to_string(ws[0]) +
             " input channels, divisible by the group, found " + std::to_string(xs[1]));
  shape.window = transposed_window(ctx, spatial(xs), kernel_extents(ctx, spatial(ws)));
  shape.output = {shape.batch, shape.out_channels};
  shape.output.insert(shape.output.end(), shape.window.output.begin(), shape.window.output.end());
  return shape;
}

void check_channel_input(const OpContext& ctx, size_t i, int64_t channels, const char* what) {
  if (!ctx.has_input(i)) return;
  std::vector<int64_t> shape = ctx.input_shape(i);
  if (shape != std::vector<int64_t>{channels})
    ctx.fail(std::string(what) + " has shape " + shape_text(shape) + "; expected [" +
             std::to_string(channels) + "], one value per output channel");
}

te::Tensor pad_data(const Operand& data, const Window& w, const std::string& name) {
  size_t rank = w.rank();
  std::vector<int64_t> extents = {data.shape[0], data.shape[1]};
  for (size_t d = 0; d < rank; ++d)
    extents.push_back(std::max(w.input[d] + w.pads_begin[d] + w.pads_end[d],
                               (w.output[d] - 1) * w.strides[d] + w.span(d)));
  return te::compute(
      shape_exprs(extents),
      [&](const std::vector<te::Var>& index) {
        std::vector<ir::Expr> at = {index[0], index[1]};
        ir::Expr inside = ir::make_bool(true);
        for (size_t d = 0; d < rank; ++d) {
          ir::Expr pos = index[d + 2] - w.pads_begin[d];
          inside = inside && pos >= 0 && pos < w.input[d];
          // Select evaluates both arms: the load is clamped into the data.
          at.push_back(ir::max(ir::min(pos, w.input[d] - 1), int64_t{0}));
        }
        return ir::select(inside, data.load(at), ir::make_const(data.dtype, 0));
      },
      name);
}

te::Tensor conv_nd(const ConvShape& shape, const Operand& data, const Operand& weight,
                   const std::string& name) {
  const Window& w = shape.window;
  size_t rank = w.rank();
  TESSEL_ICHECK(data.shape.size() == rank + 2 && weight.shape.size() == rank + 2, "conv ", name,
                ": operands of rank ", data.shape.size(), " and ", weight.shape.size(), " for ",
                rank, " spatial dimensions");
  // The data as a function of padded positions (shifted by pads_begin).
  std::function<ir::Expr(const std::vector<ir::Expr>&)> padded = data.load;
  if (!w.inside()) {
    te::Tensor pad = pad_data(data, w, name + ".pad");
    padded = [pad](const std::vector<ir::Expr>& index) { return pad(index); };
  }

  int64_t group_in = shape.in_channels / shape.groups;
  int64_t group_out = shape.out_channels / shape.groups;
  std::vector<te::IterVar> reduce = {te::reduce_axis(ir::Expr(group_in), "rc")};
  std::vector<std::string> names = {"n", "m"};
  for (size_t d = 0; d < rank; ++d) {
    reduce.push_back(te::reduce_axis(ir::Expr(w.kernel[d]), indexed_name("k", d)));
    names.push_back(indexed_name("o", d));
  }
  return te::compute(
      shape_exprs(shape.output),
      [&](const std::vector<te::Var>& index) {
        ir::Expr m = index[1];
        ir::Expr channel =
            shape.groups == 1 ? ir::Expr(reduce[0].var) : m / group_out * group_in + reduce[0].var;
        std::vector<ir::Expr> at = {index[0], channel};
        std::vector<ir::Expr> tap = {m, reduce[0].var};
        for (size_t d = 0; d < rank; ++d) {
          ir::Expr k = reduce[d + 1].var;
          at.push_back(index[d + 2] * w.strides[d] + k * w.dilations[d]);
          tap.push_back(k);
        }
        return te::sum(padded(at) * weight.load(tap), reduce);
      },
      name, names);
}

bool use_tuned_conv2d(const ConvShape& shape, ir::DataType dtype) {
  const Window& w = shape.window;
  if (dtype != ir::DataType::Float(32) || w.rank() != 2 || shape.groups != 1) return false;
  for (size_t d = 0; d < 2; ++d)
    if (w.dilations[d] != 1 || w.strides[d] != w.strides[0]) return false;
  return true;
}

bool use_depthwise_conv2d(const ConvShape& shape, ir::DataType dtype) {
  const Window& w = shape.window;
  if (dtype != ir::DataType::Float(32) || w.rank() != 2 || shape.groups == 1 ||
      shape.groups != shape.in_channels || shape.groups != shape.out_channels)
    return false;
  return w.dilations[0] == 1 && w.dilations[1] == 1 && w.strides[0] == w.strides[1];
}

bool symmetric_pads(const Window& w) {
  for (size_t d = 0; d < w.rank(); ++d)
    if (w.pads_begin[d] != w.pads_begin[0] || w.pads_end[d] != w.pads_begin[0] ||
        (w.input[d] + 2 * w.pads_begin[0] - w.span(d)) / w.strides[d] + 1 != w.output[d])
      return false;
  return true;
}

}  // namespace tessel::ops::nn

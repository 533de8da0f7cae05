// DepthToSpace and SpaceToDepth: move blocks of blocksize x blocksize pixels between the
// channel dimension and the spatial dimensions of an NCHW tensor. DepthToSpace orders the
// channels depth-column-row ('DCR', the only order before opset 11) or column-row-depth
// ('CRD').
#include "ops/index/index_common.h"
#include "ops/op_util.h"

namespace tessel::ops::index {
namespace {

using ir::Expr;
using te::Var;

/// The input shape and the block size, checked for `op`.
std::pair<std::vector<int64_t>, int64_t> blocked_shape(const OpContext& ctx) {
  std::vector<int64_t> shape = ctx.input_shape(0);
  if (shape.size() != 4) ctx.fail("input has shape " + shape_text(shape) + ", expected rank 4");
  int64_t block = ctx.attr_int("blocksize");
  if (block < 1) ctx.fail("attribute 'blocksize' is " + std::to_string(block) + ", expected >= 1");
  return {shape, block};
}

std::vector<int64_t> depth_to_space_shape(const OpContext& ctx) {
  auto [s, b] = blocked_shape(ctx);
  if (s[1] % (b * b) != 0)
    ctx.fail("channels " + std::to_string(s[1]) +
             " are not a multiple of blocksize^2 = " + std::to_string(b * b));
  return {s[0], s[1] / (b * b), s[2] * b, s[3] * b};
}

std::vector<int64_t> space_to_depth_shape(const OpContext& ctx) {
  auto [s, b] = blocked_shape(ctx);
  if (s[2] % b != 0 || s[3] % b != 0)
    ctx.fail("spatial extents " + std::to_string(s[2]) + " x " + std::to_string(s[3]) +
             " are not multiples of blocksize " + std::to_string(b));
  return {s[0], s[1] * b * b, s[2] / b, s[3] / b};
}

std::vector<te::Tensor> depth_to_space(const OpContext& ctx, const std::vector<te::Tensor>& in) {
  std::vector<int64_t> out = depth_to_space_shape(ctx);
  int64_t b = ctx.attr_int("blocksize");
  bool crd = ctx.opset() >= 11 && attr_choice(ctx, "mode", {"DCR", "CRD"}) == "CRD";
  const te::Tensor& x = in[0];
  auto body = [&](Var n, Var c, Var h, Var w) {
    Expr block_row = h % b, block_col = w % b;
    Expr channel =
        crd ? (c * b + block_row) * b + block_col : (block_row * b + block_col) * out[1] + c;
    return x(n, channel, h / b, w / b);
  };
  return {te::compute(shape_exprs(out), body, "depth_to_space")};
}

std::vector<te::Tensor> space_to_depth(const OpContext& ctx, const std::vector<te::Tensor>& in) {
  std::vector<int64_t> out = space_to_depth_shape(ctx);
  int64_t b = ctx.attr_int("blocksize"), channels = ctx.input_shape(0)[1];
  const te::Tensor& x = in[0];
  auto body = [&](Var n, Var c, Var h, Var w) {
    Expr block = c / channels;
    return x(n, c % channels, h * b + block / b, w * b + block % b);
  };
  return {te::compute(shape_exprs(out), body, "space_to_depth")};
}

graph::TensorType like_input(const OpContext& ctx, const std::vector<int64_t>& shape) {
  return graph::TensorType::of(ctx.input_type(0).dtype, shape);
}

}  // namespace

void register_depth_space_ops(OpRegistry& registry) {
  AttrSpec blocksize{"blocksize", graph::AttrKind::Int, std::nullopt, true};
  registry.add(make_op(
      "DepthToSpace", 1, PatternKind::Injective,
      {blocksize, {"mode", graph::AttrKind::String, graph::Attribute::of_string("DCR")}},
      [](const OpContext& ctx) {
        if (ctx.opset() >= 11) attr_choice(ctx, "mode", {"DCR", "CRD"});
        return std::vector{like_input(ctx, depth_to_space_shape(ctx))};
      },
      depth_to_space));
  registry.add(make_op(
      "SpaceToDepth", 1, PatternKind::Injective, {blocksize},
      [](const OpContext& ctx) { return std::vector{like_input(ctx, space_to_depth_shape(ctx))}; },
      space_to_depth));
}

}  // namespace tessel::ops::index

// Operators that repeat the input: Expand (numpy broadcast to a shape, in both directions)
// and Tile (the input repeated along each axis).
#include "ops/op_util.h"
#include "ops/shape/shape_ops.h"

namespace tessel::ops::shape {

namespace {

std::vector<int64_t> expand_shape(const OpContext& ctx) {
  if (ctx.input_shape(1).size() != 1)
    ctx.fail("input 'shape' must be 1-d, found " + ctx.input_type(1).to_string());
  std::vector<int64_t> shape = ctx.input_ints(1);
  check_shape(ctx, shape, "input 'shape' " + shape_text(shape));
  std::vector<int64_t> result = broadcast_shapes(ctx, {ctx.input_shape(0), shape});
  check_shape(ctx, result, "the output");
  return result;
}

OpDef expand_op() {
  OpDef def;
  def.name = "Expand";
  def.since_version = 8;
  def.pattern = PatternKind::Injective;
  def.value_inputs = {1};
  def.infer = [](const OpContext& ctx) { return like_input(ctx, expand_shape(ctx)); };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& inputs) {
    return std::vector<te::Tensor>{te::compute(
        shape_exprs(expand_shape(ctx)),
        [&](const std::vector<te::Var>& v) { return broadcast_load(inputs[0], v); }, "expand")};
  };
  return def;
}

std::vector<int64_t> tile_shape(const OpContext& ctx) {
  std::vector<int64_t> shape = ctx.input_shape(0);
  std::vector<int64_t> repeats = ctx.input_ints(1);
  if (repeats.size() != shape.size())
    ctx.fail("input 'repeats' " + shape_text(repeats) + " has " + std::to_string(repeats.size()) +
             " entries for an input of rank " + std::to_string(shape.size()));
  for (size_t d = 0; d < shape.size(); ++d) {
    if (repeats[d] < 0)
      ctx.fail("input 'repeats' " + shape_text(repeats) + " has a negative entry");
    if (shape[d] != 0 && repeats[d] > graph::kMaxTensorElements / shape[d])
      ctx.fail("input 'repeats' " + shape_text(repeats) + " makes more than 2^34 elements");
    shape[d] *= repeats[d];
  }
  check_shape(ctx, shape, "the output");
  return shape;
}

OpDef tile_op() {
  OpDef def;
  def.name = "Tile";
  def.since_version = 6;
  def.pattern = PatternKind::Injective;
  def.value_inputs = {1};
  def.infer = [](const OpContext& ctx) { return like_input(ctx, tile_shape(ctx)); };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& inputs) {
    std::vector<int64_t> in = ctx.input_shape(0);
    auto index = [&](const std::vector<te::Var>& v) {
      std::vector<ir::Expr> at;
      for (size_t d = 0; d < v.size(); ++d)
        at.push_back(in[d] == 1 ? ir::Expr(int64_t{0}) : v[d] % in[d]);
      return at;
    };
    return std::vector<te::Tensor>{gather_input(inputs[0], tile_shape(ctx), index, "tile")};
  };
  return def;
}

}  // namespace

void register_broadcast_ops(OpRegistry& registry) {
  registry.add(expand_op());
  registry.add(tile_op());
}

}  // namespace tessel::ops::shape

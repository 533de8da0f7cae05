// Transpose: permutes the input's axes (default: reverses them).
#include "ops/shape/shape_ops.h"

namespace tessel::ops::shape {

namespace {

/// The permutation: output axis d is input axis perm[d].
std::vector<int64_t> permutation(const OpContext& ctx) {
  auto rank = static_cast<int64_t>(ctx.input_shape(0).size());
  std::vector<int64_t> perm;
  if (!ctx.has_attr("perm")) {
    for (int64_t d = rank - 1; d >= 0; --d) perm.push_back(d);
    return perm;
  }
  perm = ctx.attr_ints("perm");
  std::vector<bool> seen(static_cast<size_t>(rank));
  bool valid = static_cast<int64_t>(perm.size()) == rank;
  for (size_t d = 0; valid && d < perm.size(); ++d) {
    valid = perm[d] >= 0 && perm[d] < rank && !seen[perm[d]];
    if (valid) seen[perm[d]] = true;
  }
  if (!valid)
    ctx.fail("attribute 'perm' " + shape_text(perm) + " is not a permutation of 0.." +
             std::to_string(rank - 1) + " (input rank " + std::to_string(rank) + ")");
  return perm;
}

std::vector<int64_t> transposed_shape(const OpContext& ctx, const std::vector<int64_t>& perm) {
  std::vector<int64_t> in = ctx.input_shape(0), shape;
  for (int64_t axis : perm) shape.push_back(in[axis]);
  return shape;
}

OpDef transpose_op() {
  OpDef def;
  def.name = "Transpose";
  def.since_version = 1;
  def.attributes = {{"perm", graph::AttrKind::Ints, {}}};
  def.pattern = PatternKind::Injective;
  def.infer = [](const OpContext& ctx) {
    return like_input(ctx, transposed_shape(ctx, permutation(ctx)));
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& inputs) {
    std::vector<int64_t> perm = permutation(ctx);
    auto index = [&](const std::vector<te::Var>& v) {
      std::vector<ir::Expr> at(v.size());
      for (size_t d = 0; d < v.size(); ++d) at[perm[d]] = v[d];
      return at;
    };
    return std::vector<te::Tensor>{
        gather_input(inputs[0], transposed_shape(ctx, perm), index, "transpose")};
  };
  return def;
}

}  // namespace

void register_transpose_ops(OpRegistry& registry) {
  registry.add(transpose_op());
}

}  // namespace tessel::ops::shape

// Operators defined by a matrix diagonal offset k: EyeLike (ones on the k-th diagonal) and
// Trilu (the upper or lower triangle from the k-th diagonal, the rest zero).
#include <optional>

#include "graph/onnx_dtype.h"
#include "ops/op_util.h"
#include "ops/shape/shape_ops.h"
#include "te/compute.h"

namespace tessel::ops::shape {

namespace {

using graph::AttrKind;

/// The element type of ONNX's TensorProto.DataType `code` (attribute `dtype`).
ir::DataType onnx_element_type(const OpContext& ctx, int64_t code) {
  if (std::optional<ir::DataType> dtype = graph::data_type_from_onnx_code(code)) return *dtype;
  ctx.fail("attribute 'dtype' is " + std::to_string(code) + ", not a supported type");
}

ir::DataType eye_like_type(const OpContext& ctx) {
  if (ctx.input_shape(0).size() != 2)
    ctx.fail("input must be 2-d, found " + ctx.input_type(0).to_string());
  return ctx.has_attr("dtype") ? onnx_element_type(ctx, ctx.attr_int("dtype"))
                               : ctx.input_type(0).dtype;
}

OpDef eye_like_op() {
  OpDef def;
  def.name = "EyeLike";
  def.since_version = 9;
  def.attributes = {{"dtype", AttrKind::Int, {}},
                    {"k", AttrKind::Int, graph::Attribute::of_int(0)}};
  def.pattern = PatternKind::Injective;
  def.infer = [](const OpContext& ctx) {
    return std::vector<graph::TensorType>{
        graph::TensorType::of(eye_like_type(ctx), ctx.input_shape(0))};
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>&) {
    ir::DataType dtype = eye_like_type(ctx);
    int64_t k = ctx.attr_int("k");
    return std::vector<te::Tensor>{te::compute(
        shape_exprs(ctx.input_shape(0)),
        [&](te::Var i, te::Var j) {
          return ir::select(j - i == k, ir::make_const(dtype, 1), ir::make_const(dtype, 0));
        },
        "eye_like")};
  };
  return def;
}

int64_t trilu_offset(const OpContext& ctx) {
  if (ctx.input_shape(0).size() < 2)
    ctx.fail("input must have rank >= 2, found " + ctx.input_type(0).to_string());
  if (!ctx.has_input(1)) return 0;
  std::vector<int64_t> k = ctx.input_ints(1);
  if (k.size() != 1) ctx.fail("input 'k' must hold one value, found " + std::to_string(k.size()));
  return k[0];
}

OpDef trilu_op() {
  OpDef def;
  def.name = "Trilu";
  def.since_version = 14;
  def.attributes = {{"upper", AttrKind::Int, graph::Attribute::of_int(1)}};
  def.pattern = PatternKind::Injective;
  def.value_inputs = {1};
  def.infer = [](const OpContext& ctx) {
    trilu_offset(ctx);
    return like_input(ctx, ctx.input_shape(0));
  };
  def.compute = [](const OpContext& ctx, const std::vector<te::Tensor>& inputs) {
    int64_t k = trilu_offset(ctx);
    bool upper = ctx.attr_int("upper") != 0;
    const te::Tensor& x = inputs[0];
    auto body = [&](const std::vector<te::Var>& v) {
      ir::Expr offset = v[v.size() - 1] - v[v.size() - 2];
      ir::Expr keep = upper ? offset >= k : offset <= k;
      return ir::select(keep, x(std::vector<ir::Expr>(v.begin(), v.end())),
                        ir::make_const(x.dtype(), 0));
    };
    return std::vector<te::Tensor>{te::compute(shape_exprs(ctx.input_shape(0)), body, "trilu")};
  };
  return def;
}

}  // namespace

void register_diagonal_ops(OpRegistry& registry) {
  registry.add(eye_like_op());
  registry.add(trilu_op());
}

}  // namespace tessel::ops::shape

// Registration of binary element-wise operators with numpy broadcasting from their table
// entries (BinaryOp), and the broadcasting of opsets before 7.
#include <optional>
#include <sstream>

#include "ops/elementwise/elementwise.h"

namespace tessel::ops::elementwise {

namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
  std::ostringstream text;
  text << "[";
  for (size_t d = 0; d < shape.size(); ++d) text << (d ? "," : "") << shape[d];
  text << "]";
  return text.str();
}

/// How an operator of opset 1-6 lines input 1 up with input 0: as the shape input 1 takes
/// for numpy broadcasting (ones around its own extents), and where its axes start.
struct LegacyBroadcast {
  std::vector<int64_t> shape;
  int64_t axis = 0;
};

/// Before opset 7, input 1 broadcasts onto input 0 only with attribute broadcast = 1, its
/// axes lined up with input 0's from attribute 'axis' on (by default its last ones); without
/// it the shapes are equal. PRelu's slope (unidirectional) always broadcasts: one value to
/// every element, or one per channel (axis 1). nullopt from opset 7 on (numpy broadcasting).
std::optional<LegacyBroadcast> legacy_broadcast(const BinaryOp& op, const OpContext& ctx) {
  if (ctx.opset() >= 7) return std::nullopt;
  std::vector<int64_t> a = ctx.input_shape(0), b = ctx.input_shape(1);
  auto rank = static_cast<int64_t>(a.size()), b_rank = static_cast<int64_t>(b.size());
  LegacyBroadcast legacy{std::vector<int64_t>(a.size(), 1), 0};
  if (op.unidirectional) {
    if (te::shape_size(b) == 1) return legacy;
    legacy.axis = 1;
  } else if (!ctx.attr_int("broadcast")) {
    if (a != b)
      ctx.fail("without attribute 'broadcast' (opset " + std::to_string(ctx.opset()) +
               ") the inputs must have one shape, found " + shape_text(a) + " and " +
               shape_text(b));
    legacy.shape = b;
    return legacy;
  } else {
    if (b_rank > rank)
      ctx.fail("input 1 " + shape_text(b) + " has more axes than input 0 " + shape_text(a));
    legacy.axis = ctx.has_attr("axis") ? ctx.attr_int("axis") : rank - b_rank;
    if (legacy.axis < 0) legacy.axis += rank;
  }
  if (legacy.axis < 0 || legacy.axis + b_rank > rank)
    ctx.fail("input 1 " + shape_text(b) + " does not line up with input 0 " + shape_text(a) +
             " from axis " + std::to_string(legacy.axis));
  for (int64_t d = 0; d < b_rank; ++d) {
    if (b[d] != 1 && b[d] != a[legacy.axis + d])
      ctx.fail("input 1 " + shape_text(b) + " does not broadcast onto input 0 " + shape_text(a) +
               " from axis " + std::to_string(legacy.axis));
    legacy.shape[legacy.axis + d] = b[d];
  }
  return legacy;
}

/// Input 1 of an opset-6 node seen in its numpy-broadcasting shape.
te::Tensor legacy_view(const te::Tensor& b, const LegacyBroadcast& legacy) {
  return te::compute(
      shape_exprs(legacy.shape),
      [&](const std::vector<te::Var>& index) {
        std::vector<ir::Expr> at;
        for (int d = 0; d < b.ndim(); ++d)
          at.push_back(legacy.shape[legacy.axis + d] == 1
                           ? ir::Expr(int64_t{0})
                           : ir::Expr(index[static_cast<size_t>(legacy.axis + d)]));
        return b(at);
      },
      b.name() + ".lined_up");
}

std::vector<graph::TensorType> infer_binary(const BinaryOp& op, const OpContext& ctx) {
  check_input_count(ctx, 2, 2);
  check_input_type(ctx, 0, op.types);
  if (op.b_types)
    check_input_type(ctx, 1, op.b_types);
  else
    check_same_type(ctx, 0, 1);
  if (op.validate) op.validate(ctx);
  std::optional<LegacyBroadcast> legacy = legacy_broadcast(op, ctx);
  std::vector<int64_t> shape = legacy ? broadcast_shapes(ctx, {ctx.input_shape(0), legacy->shape})
                                      : broadcast_input_shapes(ctx, {0, 1});
  if (op.unidirectional && shape != ctx.input_shape(0))
    ctx.fail("input 1 of shape " + shape_text(ctx.input_shape(1)) +
             " does not broadcast to the shape of input 0, " + shape_text(ctx.input_shape(0)));
  ir::DataType dtype = op.bool_result ? ir::DataType::Bool() : ctx.input_type(0).dtype;
  return {graph::TensorType::of(dtype, shape)};
}

}  // namespace

void register_binary(OpRegistry& registry, const BinaryOp& op) {
  OpDef def;
  def.name = op.name;
  def.since_version = op.since_version;
  def.attributes = op.attributes;
  if (op.since_version < 7) {  // the broadcasting of opsets 1-6 (and 1-5's in-place hint)
    def.attributes.push_back({"broadcast", graph::AttrKind::Int, graph::Attribute::of_int(0)});
    def.attributes.push_back({"axis", graph::AttrKind::Int, std::nullopt});
    def.attributes.push_back({"consumed_inputs", graph::AttrKind::Ints, std::nullopt});
  }
  def.pattern = PatternKind::Broadcast;
  def.infer = [op](const OpContext& ctx) { return infer_binary(op, ctx); };
  def.compute = [op](const OpContext& ctx, const std::vector<te::Tensor>& inputs) {
    ir::DataType out = op.bool_result ? ir::DataType::Bool() : inputs[0].dtype();
    auto body = [&](const std::vector<ir::Expr>& v) {
      return ir::cast(out, op.body(ctx, widen(v[0]), widen(v[1])));
    };
    std::optional<LegacyBroadcast> legacy = legacy_broadcast(op, ctx);
    te::Tensor b = legacy ? legacy_view(inputs[1], *legacy) : inputs[1];
    return std::vector<te::Tensor>{
        broadcast_compute(ctx, {inputs[0], b}, body, stage_name(op.name))};
  };
  registry.add(std::move(def));
}

}  // namespace tessel::ops::elementwise

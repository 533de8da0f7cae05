// Helpers shared by the element-wise operators: element type rules, compute types, the
// broadcast compute.
#include <cctype>
#include <cstdint>

#include "ops/elementwise/elementwise.h"

namespace tessel::ops::elementwise {

namespace {

std::string describe_types(unsigned types) {
  std::string text;
  auto add = [&](unsigned kind, const char* name) {
    if ((types & kind) != kind) return;
    text += text.empty() ? name : std::string(", ") + name;
    types &= ~kind;
  };
  add(kFloat, "floating-point");
  add(kInteger, "integer");
  add(kSigned, "signed integer");
  add(kUnsigned, "unsigned integer");
  add(kBool, "bool");
  add(kString, "string");
  return text;
}

/// Whether `dtype` is one of `types`.
bool type_in(ir::DataType dtype, unsigned types) {
  if (!dtype.is_scalar()) return false;
  if (dtype.is_float()) return types & kFloat;
  if (dtype.is_int()) return types & kSigned;
  if (dtype.is_uint()) return types & kUnsigned;
  if (dtype.is_bool()) return types & kBool;
  if (dtype.is_string()) return types & kString;
  return false;
}

ir::DataType compute_type(ir::DataType dtype, bool integers_as_float) {
  if (dtype.is_float() && dtype.bits == 16) return ir::DataType::Float(32, dtype.lanes);
  if (integers_as_float && dtype.is_integer()) return ir::DataType::Float(64, dtype.lanes);
  return dtype;
}

}  // namespace

void check_input_count(const OpContext& ctx, size_t min_inputs, size_t max_inputs) {
  size_t n = ctx.num_inputs();
  if (n >= min_inputs && n <= max_inputs) return;
  std::string expected = std::to_string(min_inputs);
  if (max_inputs != min_inputs)
    expected += max_inputs == SIZE_MAX ? " or more" : " to " + std::to_string(max_inputs);
  ctx.fail("expected " + expected + " inputs, found " + std::to_string(n));
}

void check_input_type(const OpContext& ctx, size_t i, unsigned types) {
  ir::DataType dtype = ctx.input_type(i).dtype;
  if (!type_in(dtype, types))
    ctx.fail("input " + std::to_string(i) + " has element type " + dtype.to_string() +
             "; expected " + describe_types(types));
}

void check_same_type(const OpContext& ctx, size_t i, size_t j) {
  ir::DataType a = ctx.input_type(i).dtype, b = ctx.input_type(j).dtype;
  if (a != b)
    ctx.fail("inputs " + std::to_string(i) + " and " + std::to_string(j) +
             " must have the same element type, found " + a.to_string() + " and " + b.to_string());
}

ir::Expr widen(const ir::Expr& value, bool integers_as_float) {
  return ir::cast(compute_type(value.dtype(), integers_as_float), value);
}

std::vector<int64_t> broadcast_input_shapes(const OpContext& ctx,
                                            const std::vector<size_t>& inputs) {
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i : inputs) shapes.push_back(ctx.input_shape(i));
  return broadcast_shapes(ctx, shapes);
}

te::Tensor broadcast_compute(const OpContext& ctx, const std::vector<te::Tensor>& inputs,
                             const std::function<ir::Expr(const std::vector<ir::Expr>&)>& body,
                             const std::string& name) {
  std::vector<std::vector<int64_t>> shapes;
  for (const te::Tensor& t : inputs) shapes.push_back(te::static_shape(t));
  std::vector<int64_t> shape = broadcast_shapes(ctx, shapes);
  return te::compute(
      shape_exprs(shape),
      [&](const std::vector<te::Var>& index) {
        std::vector<ir::Expr> values;
        for (const te::Tensor& t : inputs) values.push_back(broadcast_load(t, index));
        return body(values);
      },
      name);
}

AttrSpec float_attr(const std::string& name, double default_value) {
  return AttrSpec{name, graph::AttrKind::Float, graph::Attribute::of_float(default_value)};
}

ir::Expr attr_const(const OpContext& ctx, const std::string& name, const ir::Expr& like) {
  return ir::make_const(like.dtype(), ctx.attr_float(name));
}

ir::Expr clamp(const ir::Expr& value, const ir::Expr& lo, const ir::Expr& hi) {
  return ir::select(value < lo, lo, ir::select(value > hi, hi, value));
}

std::string stage_name(const std::string& op_name) {
  std::string name;
  for (char c : op_name) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

}  // namespace tessel::ops::elementwise

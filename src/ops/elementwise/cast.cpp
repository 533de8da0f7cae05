// Cast (target type from the 'to' attribute, an ONNX TensorProto data type code) and
// CastLike (target type from its second input). Conversions to and from 16-bit floats go
// through float32. A cast to or from string runs as a step of the runtime (CastString in
// runtime/string_ops.h); complex types are not supported.
#include <optional>
#include <utility>

#include "graph/onnx_dtype.h"
#include "ops/elementwise/elementwise.h"

namespace tessel::ops::elementwise {

namespace {

/// The element type of ONNX data type code `code` (TensorProto.DataType, attribute 'to').
ir::DataType onnx_data_type(const OpContext& ctx, int64_t code) {
  if (std::optional<ir::DataType> dtype = graph::data_type_from_onnx_code(code)) return *dtype;
  if (code == 14 || code == 15) ctx.fail("cast to a complex type is not supported");
  ctx.fail("attribute 'to' is " + std::to_string(code) + ", not an ONNX data type");
}

ir::DataType target_type(const OpContext& ctx) {
  if (ctx.node().op_type == "CastLike") return ctx.input_type(1).dtype;
  return onnx_data_type(ctx, ctx.attr_int("to"));
}

std::vector<graph::TensorType> infer_cast(const OpContext& ctx) {
  size_t inputs = ctx.node().op_type == "CastLike" ? 2 : 1;
  check_input_count(ctx, inputs, inputs);
  for (size_t i = 0; i < inputs; ++i) check_input_type(ctx, i, kAnyType | kString);
  graph::TensorType out = ctx.input_type(0);
  out.dtype = target_type(ctx);
  return {out};
}

std::vector<te::Tensor> compute_cast(const OpContext& ctx, const std::vector<te::Tensor>& inputs) {
  ir::DataType to = target_type(ctx);
  auto body = [&](const std::vector<ir::Expr>& v) {
    ir::DataType from = v[0].dtype();
    ir::DataType f32 = ir::DataType::Float(32);
    bool via_float32 = (from.is_float() && from.bits == 16) || (to.is_float() && to.bits == 16);
    return ir::cast(to, via_float32 ? ir::cast(f32, v[0]) : v[0]);
  };
  return {broadcast_compute(ctx, {inputs[0]}, body, "cast")};
}

/// The runtime step of a cast to or from string; nothing for other casts, which are kernels.
std::optional<DataDependentStep> string_cast_step(const OpContext& ctx) {
  ir::DataType from = ctx.input_type(0).dtype, to = target_type(ctx);
  if (!from.is_string() && !to.is_string()) return std::nullopt;
  if (from == to) ctx.fail("a cast from string to string is not supported");
  runtime::DType target = graph::to_runtime_dtype(to);
  return DataDependentStep{runtime::StepKind::CastString,
                           {static_cast<int64_t>(target.code), static_cast<int64_t>(target.bits)}};
}

OpDef cast_def(std::string name, int since_version) {
  OpDef def;
  def.name = std::move(name);
  def.since_version = since_version;
  def.pattern = PatternKind::Elementwise;
  def.infer = infer_cast;
  def.compute = compute_cast;
  def.data_dependent = string_cast_step;
  return def;
}

}  // namespace

void register_cast_ops(OpRegistry& registry) {
  OpDef cast = cast_def("Cast", 6);
  cast.attributes = {{"to", graph::AttrKind::Int, std::nullopt, true}};
  registry.add(std::move(cast));
  registry.add(cast_def("CastLike", 15));
}

}  // namespace tessel::ops::elementwise

// Linear quantisation arithmetic (see quantize.h).
#include "ops/nn/quantize.h"

#include <cmath>

#include "ops/nn/nn_util.h"
#include "support/error.h"

namespace tessel::ops::nn {

ir::Expr quantize_value(const ir::Expr& scaled, const ir::Expr& zero_point, ir::DataType dtype) {
  TESSEL_ICHECK(dtype.is_integer() && dtype.bits <= 32, "quantizing to ", dtype.to_string());
  ir::DataType t = scaled.dtype();
  double low = dtype.is_int() ? -std::ldexp(1.0, dtype.bits - 1) : 0.0;
  double high =
      dtype.is_int() ? std::ldexp(1.0, dtype.bits - 1) - 1 : std::ldexp(1.0, dtype.bits) - 1;
  ir::Expr value = ir::round(scaled) + zero_point;
  value = ir::min(ir::max(value, ir::make_const(t, low)), ir::make_const(t, high));
  return ir::cast(dtype, value);
}

void check_param(const OpContext& ctx, size_t i, int64_t extent, const std::string& what) {
  if (!ctx.has_input(i)) return;
  std::vector<int64_t> shape = ctx.input_shape(i);
  bool scalar = shape.empty() || shape == std::vector<int64_t>{1};
  bool per_axis = extent > 0 && shape == std::vector<int64_t>{extent};
  if (scalar || per_axis) return;
  ctx.fail(what + " has shape " + shape_text(shape) + "; expected [] or [1]" +
           (extent > 0 ? " or [" + std::to_string(extent) + "]" : std::string()));
}

ir::Expr param_load(const te::Tensor& param, const ir::Expr& channel, ir::DataType dtype) {
  if (!param.defined()) return ir::make_const(dtype, 0);
  const int64_t* extent = param.ndim() == 1 ? ir::as_const_int(param.shape()[0]) : nullptr;
  std::vector<ir::Expr> at;
  if (param.ndim() == 1) at.push_back(extent && *extent == 1 ? ir::Expr(int64_t{0}) : channel);
  return ir::cast(dtype, param(at));
}

std::vector<ir::DataType> quantized_types() {
  return {ir::DataType::Int(8), ir::DataType::UInt(8)};
}

}  // namespace tessel::ops::nn

// Linear quantisation arithmetic shared by the quantisation operators: rounding (half to
// even) with saturation to the quantized type, and per-tensor / per-axis parameters.
#pragma once

#include <cstdint>
#include <string>

#include "ops/op_context.h"
#include "te/compute.h"

namespace tessel::ops::nn {

/// round(`scaled`) (ties to even) + `zero_point` (floats) saturated to the range of the integer
/// type `dtype`, as `dtype`.
ir::Expr quantize_value(const ir::Expr& scaled, const ir::Expr& zero_point, ir::DataType dtype);

/// Fails unless input `i` is a per-tensor parameter (shape [] or [1]) or, when `extent` is
/// positive, a per-axis parameter of shape [extent].
void check_param(const OpContext& ctx, size_t i, int64_t extent, const std::string& what);

/// The value of a parameter checked by check_param for `channel` (the position along the
/// parameter's axis), as `dtype`; `dtype` zero when the parameter is absent (undefined).
ir::Expr param_load(const te::Tensor& param, const ir::Expr& channel, ir::DataType dtype);

/// The quantized types: int8, uint8.
std::vector<ir::DataType> quantized_types();

}  // namespace tessel::ops::nn

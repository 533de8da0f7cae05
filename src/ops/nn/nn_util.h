// Helpers shared by the nn operator family: operands read through a conversion, element
// type checks and accumulation types.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ops/op_context.h"
#include "schedule/schedule.h"
#include "te/compute.h"

namespace tessel::ops::nn {

/// An operand of a contraction: its static shape and how one element is read (a load of a
/// tensor, possibly converted, e.g. a quantized value minus its zero point).
struct Operand {
  std::vector<int64_t> shape;
  ir::DataType dtype;  ///< the type of the loaded values
  std::function<ir::Expr(const std::vector<ir::Expr>&)> load;

  /// The operand reading `tensor` as it is, converted to `dtype` when that is given.
  static Operand of(const te::Tensor& tensor, std::optional<ir::DataType> dtype = {});
};

/// The float types the nn operators accept.
std::vector<ir::DataType> float_types();

/// Fails unless input `i` has one of the `allowed` element types.
void check_dtype(const OpContext& ctx, size_t i, const std::vector<ir::DataType>& allowed);

/// The type that sums of `dtype` products accumulate in: float32 for 16-bit floats, else
/// `dtype` itself.
ir::DataType accumulation_type(ir::DataType dtype);

/// `tensor` converted to `dtype`: `tensor` itself when the types agree, else a cast stage
/// named `name`.
te::Tensor cast_to(const te::Tensor& tensor, ir::DataType dtype, const std::string& name);

/// `prefix` followed by `index`, e.g. the loop name "k0".
std::string indexed_name(const char* prefix, size_t index);

/// A shape as text, "[1, 3, 5]".
std::string shape_text(const std::vector<int64_t>& shape);

/// Whether the schedule has a stage named `name`.
bool has_stage(const schedule::Schedule& s, const std::string& name);

}  // namespace tessel::ops::nn

// Helpers shared by the nn operator family (see nn_util.h).
#include "ops/nn/nn_util.h"

#include <sstream>

#include "support/error.h"

namespace tessel::ops::nn {

Operand Operand::of(const te::Tensor& tensor, std::optional<ir::DataType> dtype) {
  std::vector<int64_t> shape = te::static_shape(tensor);
  bool convert = dtype && *dtype != tensor.dtype();
  return Operand{shape, dtype.value_or(tensor.dtype()),
                 [tensor, convert, dtype](const std::vector<ir::Expr>& index) {
                   ir::Expr value = tensor(index);
                   return convert ? ir::cast(*dtype, value) : value;
                 }};
}

std::vector<ir::DataType> float_types() {
  return {ir::DataType::Float(16), ir::DataType::Float(32), ir::DataType::Float(64),
          ir::DataType::BFloat(16)};
}

void check_dtype(const OpContext& ctx, size_t i, const std::vector<ir::DataType>& allowed) {
  ir::DataType dtype = ctx.input_type(i).dtype;
  for (const ir::DataType& t : allowed)
    if (t == dtype) return;
  std::string names;
  for (const ir::DataType& t : allowed) names += (names.empty() ? "" : ", ") + t.to_string();
  ctx.fail("input " + std::to_string(i) + " has element type " + dtype.to_string() +
           "; expected one of " + names);
}

ir::DataType accumulation_type(ir::DataType dtype) {
  return dtype.is_float() && dtype.bits < 32 ? ir::DataType::Float(32) : dtype;
}

te::Tensor cast_to(const te::Tensor& tensor, ir::DataType dtype, const std::string& name) {
  if (tensor.dtype() == dtype) return tensor;
  return te::compute(
      tensor.shape(),
      [&](const std::vector<te::Var>& index) {
        return ir::cast(dtype, tensor(std::vector<ir::Expr>(index.begin(), index.end())));
      },
      name);
}

std::string indexed_name(const char* prefix, size_t index) {
  std::string name = prefix;
  name += std::to_string(index);
  return name;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::ostringstream text;
  text << "[";
  for (size_t d = 0; d < shape.size(); ++d) text << (d ? ", " : "") << shape[d];
  text << "]";
  return text.str();
}

bool has_stage(const schedule::Schedule& s, const std::string& name) {
  for (const schedule::Stage& stage : s.stages())
    if (stage.name == name) return true;
  return false;
}

}  // namespace tessel::ops::nn

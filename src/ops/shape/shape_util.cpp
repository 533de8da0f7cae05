// Helpers shared by the shape operator groups (see shape_ops.h).
#include <cstring>
#include <set>
#include <sstream>

#include "ops/op_util.h"
#include "ops/shape/shape_ops.h"
#include "support/error.h"
#include "te/compute.h"

namespace tessel::ops::shape {

te::Tensor gather_input(const te::Tensor& input, const std::vector<int64_t>& out_shape,
                        const IndexMap& index_map, const std::string& name) {
  return te::compute(
      shape_exprs(out_shape), [&](const std::vector<te::Var>& v) { return input(index_map(v)); },
      name);
}

std::optional<std::vector<int64_t>> ints_from_attr_or_input(const OpContext& ctx,
                                                            const std::string& attr, size_t input,
                                                            int input_since) {
  if (ctx.opset() >= input_since) {
    if (!ctx.has_input(input)) return std::nullopt;
    return ctx.input_ints(input);
  }
  if (!ctx.has_attr(attr)) return std::nullopt;
  return ctx.attr_ints(attr);
}

std::vector<int64_t> normalize_axes(const OpContext& ctx, const std::vector<int64_t>& axes,
                                    int64_t rank, const std::string& what) {
  std::vector<int64_t> result;
  std::set<int64_t> seen;
  for (int64_t axis : axes) {
    int64_t a = normalize_axis(ctx, axis, rank, what);
    if (!seen.insert(a).second)
      ctx.fail(what + " " + shape_text(axes) + " names axis " + std::to_string(a) + " twice");
    result.push_back(a);
  }
  return result;
}

void check_shape(const OpContext& ctx, const std::vector<int64_t>& shape, const std::string& what) {
  try {
    graph::checked_num_elements(shape, what);
  } catch (const CompileError& e) {
    ctx.fail(e.what());
  }
}

std::optional<int64_t> contiguous_window(const std::vector<int64_t>& in,
                                         const std::vector<int64_t>& starts,
                                         const std::vector<int64_t>& steps,
                                         const std::vector<int64_t>& shape) {
  size_t rank = in.size();
  for (int64_t extent : shape)
    if (extent <= 0) return std::nullopt;
  // The cut axis: the first the window takes more than one position of.
  size_t cut = 0;
  while (cut + 1 < rank && shape[cut] == 1) ++cut;
  if (cut < rank && shape[cut] > 1 && steps[cut] != 1) return std::nullopt;
  for (size_t d = cut + 1; d < rank; ++d)
    if (shape[d] != in[d] || (in[d] > 1 && steps[d] != 1)) return std::nullopt;
  int64_t offset = 0, stride = 1;
  for (size_t d = rank; d-- > 0;) {
    offset += starts[d] * stride;
    stride *= in[d];
  }
  return offset;
}

std::vector<graph::TensorType> like_input(const OpContext& ctx, const std::vector<int64_t>& shape) {
  return {graph::TensorType::of(ctx.input_type(0).dtype, shape)};
}

namespace {
template <class T>
T read_element(const runtime::NDArray& array, int64_t k) {
  T value;
  std::memcpy(&value, static_cast<const char*>(array.data()) + k * sizeof(T), sizeof(T));
  return value;
}
}  // namespace

ir::Expr element_expr(const OpContext& ctx, const runtime::NDArray& array, int64_t k) {
  ir::DataType dtype = graph::to_data_type(array.dtype());
  switch (array.dtype().code) {
    case runtime::DTypeCode::Float:
      if (dtype.bits == 32) return ir::make_float(read_element<float>(array, k), dtype);
      if (dtype.bits == 64) return ir::make_float(read_element<double>(array, k), dtype);
      break;
    case runtime::DTypeCode::Int:
      switch (dtype.bits) {
        case 8:
          return ir::make_int(read_element<int8_t>(array, k), dtype);
        case 16:
          return ir::make_int(read_element<int16_t>(array, k), dtype);
        case 32:
          return ir::make_int(read_element<int32_t>(array, k), dtype);
        case 64:
          return ir::make_int(read_element<int64_t>(array, k), dtype);
      }
      break;
    case runtime::DTypeCode::UInt:
      switch (dtype.bits) {
        case 1:
        case 8:
          return ir::make_int(read_element<uint8_t>(array, k), dtype);
        case 16:
          return ir::make_int(read_element<uint16_t>(array, k), dtype);
        case 32:
          return ir::make_int(read_element<uint32_t>(array, k), dtype);
        // uint64 immediates keep their bit pattern in the int64 payload.
        case 64:
          return ir::make_int(read_element<int64_t>(array, k), dtype);
      }
      break;
    case runtime::DTypeCode::BFloat:
    case runtime::DTypeCode::String:
      break;
  }
  ctx.fail("a constant of type " + array.dtype().to_string() + " is not supported");
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::ostringstream text;
  text << "[";
  for (size_t k = 0; k < shape.size(); ++k) text << (k ? ", " : "") << shape[k];
  text << "]";
  return text.str();
}

}  // namespace tessel::ops::shape

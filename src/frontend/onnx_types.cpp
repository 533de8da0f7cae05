// Element-type mapping and TypeProto conversion for the ONNX frontend.
#include "frontend/onnx_types.h"

#include <cctype>
#include <optional>

#include "graph/graph.h"
#include "graph/onnx_dtype.h"
#include "support/error.h"

namespace tessel::frontend {

namespace {

using onnx::TensorProto_DataType;

/// The ONNX name of a value's type category, for "not supported" messages.
const char* type_category_name(const onnx::TypeProto& type) {
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType:
      return "tensor";
    case onnx::TypeProto::kSequenceType:
      return "sequence";
    case onnx::TypeProto::kMapType:
      return "map";
    case onnx::TypeProto::kOptionalType:
      return "optional";
    case onnx::TypeProto::kSparseTensorType:
      return "sparse tensor";
    case onnx::TypeProto::kOpaqueType:
      return "opaque";
    case onnx::TypeProto::VALUE_NOT_SET:
      return "no";
  }
  return "unknown";
}

}  // namespace

std::string lower_case(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string onnx_elem_type_name(int32_t elem_type) {
  if (!onnx::TensorProto_DataType_IsValid(elem_type)) return "code " + std::to_string(elem_type);
  return lower_case(onnx::TensorProto_DataType_Name(static_cast<TensorProto_DataType>(elem_type)));
}

runtime::DType dtype_from_onnx(int32_t elem_type, const std::string& what) {
  // String, complex, undefined and unknown codes have no element type.
  std::optional<ir::DataType> dtype = graph::data_type_from_onnx_code(elem_type);
  if (!dtype)
    TESSEL_USER_ERROR(what, " has element type ", onnx_elem_type_name(elem_type), ": not supported");
  return graph::to_runtime_dtype(*dtype);
}

int32_t dtype_to_onnx(runtime::DType dtype) {
  std::optional<int64_t> code = graph::onnx_code_from_data_type(graph::to_data_type(dtype));
  if (!code) TESSEL_USER_ERROR("element type ", dtype.to_string(), " has no ONNX equivalent");
  return static_cast<int32_t>(*code);
}

graph::TensorType tensor_type_from_onnx(const onnx::TypeProto& type, const std::string& what) {
  if (!type.has_tensor_type())
    TESSEL_USER_ERROR(what, " has ", type_category_name(type), " type: not supported");
  const onnx::TypeProto_Tensor& tensor = type.tensor_type();
  graph::TensorType result;
  result.dtype = graph::to_data_type(dtype_from_onnx(tensor.elem_type(), what));
  if (!tensor.has_shape())
    TESSEL_USER_ERROR(what, " has no shape: values of unknown rank are not supported");
  for (int i = 0; i < tensor.shape().dim_size(); ++i) {
    const onnx::TensorShapeProto_Dimension& dim = tensor.shape().dim(i);
    if (dim.has_dim_value()) {
      if (dim.dim_value() < 0)
        TESSEL_USER_ERROR(what, ": dimension ", i, " is ", dim.dim_value(), ", expected >= 0");
      result.dims.push_back(graph::Dim::of(dim.dim_value()));
    } else if (dim.has_dim_param()) {
      result.dims.push_back(graph::Dim::named(dim.dim_param()));
    } else {
      result.dims.push_back(graph::Dim::named(""));
    }
  }
  // A declared shape too large for any tensor is refused here, before anything is sized by
  // it (symbolic dimensions are checked once they are bound).
  std::vector<int64_t> extents;
  for (const graph::Dim& d : result.dims) extents.push_back(d.is_static() ? d.value : 1);
  graph::checked_num_elements(extents, what);
  return result;
}

std::optional<StructuredType> structured_type_from_onnx(const onnx::TypeProto& type,
                                                        const std::string& value_name) {
  const std::string what = "value '" + value_name + "'";
  auto element_of = [&](const onnx::TypeProto& element, const char* container) {
    if (!element.has_tensor_type())
      TESSEL_USER_ERROR(what, " is a ", container, " of ", type_category_name(element),
                        " values: only ", container, "s of tensors are supported");
    return graph::to_data_type(dtype_from_onnx(element.tensor_type().elem_type(), what));
  };
  if (type.has_sequence_type())
    return StructuredType{graph::ValueKind::Sequence,
                          element_of(type.sequence_type().elem_type(), "sequence")};
  if (!type.has_optional_type()) return std::nullopt;
  const onnx::TypeProto& element = type.optional_type().elem_type();
  if (element.has_sequence_type())
    return StructuredType{graph::ValueKind::OptionalSequence,
                          element_of(element.sequence_type().elem_type(), "sequence")};
  return StructuredType{graph::ValueKind::OptionalTensor, element_of(element, "optional")};
}

}  // namespace tessel::frontend

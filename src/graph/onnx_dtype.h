// The ONNX TensorProto.DataType codes (constants of the ONNX specification) of the element
// types tessel supports, shared by the ONNX frontend and the operators whose attributes name
// an element type (Cast's 'to', EyeLike's 'dtype').
#pragma once

#include <cstdint>
#include <optional>

#include "ir/type.h"

namespace tessel::graph {

/// The element type of ONNX data-type `code`; nullopt for codes tessel has no element type
/// for (undefined, complex, unknown codes).
std::optional<ir::DataType> data_type_from_onnx_code(int64_t code);

/// The ONNX data-type code of `dtype`; nullopt when ONNX has no equivalent.
std::optional<int64_t> onnx_code_from_data_type(ir::DataType dtype);

}  // namespace tessel::graph

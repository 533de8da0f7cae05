// One table of ONNX TensorProto.DataType codes and their tessel element types.
#include "graph/onnx_dtype.h"

#include <utility>

namespace tessel::graph {

namespace {

using ir::DataType;

/// ONNX data-type code -> element type, for every code tessel supports.
constexpr std::pair<int64_t, DataType> kOnnxTypes[] = {
    {1, DataType::Float(32)},  {2, DataType::UInt(8)},     {3, DataType::Int(8)},
    {4, DataType::UInt(16)},   {5, DataType::Int(16)},     {6, DataType::Int(32)},
    {7, DataType::Int(64)},    {8, DataType::String()},    {9, DataType::Bool()},
    {10, DataType::Float(16)}, {11, DataType::Float(64)},  {12, DataType::UInt(32)},
    {13, DataType::UInt(64)},  {16, DataType::BFloat(16)},
};

}  // namespace

std::optional<ir::DataType> data_type_from_onnx_code(int64_t code) {
  for (const auto& [onnx_code, dtype] : kOnnxTypes)
    if (onnx_code == code) return dtype;
  return std::nullopt;
}

std::optional<int64_t> onnx_code_from_data_type(ir::DataType dtype) {
  for (const auto& [onnx_code, type] : kOnnxTypes)
    if (type == dtype) return onnx_code;
  return std::nullopt;
}

}  // namespace tessel::graph

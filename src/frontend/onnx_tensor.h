// Conversion between ONNX TensorProtos (initializers, Constant attributes, .pb files) and
// runtime::NDArrays.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "runtime/ndarray.h"

namespace tessel::frontend {

/// The data of `proto`, from raw_data (little-endian), the typed field of its element type,
/// or external data resolved against `external_data_dir`. `what` names the tensor in
/// messages ("initializer 'w'"). Throws CompileError for an unsupported element type, an
/// absurd shape, or data whose size does not match the shape; the shape is checked before
/// anything is allocated. Bool elements are normalised to 0 / 1.
runtime::NDArray tensor_from_onnx(const onnx::TensorProto& proto, const std::string& what,
                                  const std::string& external_data_dir);

/// A TensorProto holding `array` in raw_data.
onnx::TensorProto tensor_to_onnx(const runtime::NDArray& array);

}  // namespace tessel::frontend

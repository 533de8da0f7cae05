// TensorProto <-> NDArray. ONNX stores tensor data in one of three places: raw_data (bytes,
// little-endian), a typed repeated field chosen by the element type (int32_data also carries
// the 8- and 16-bit types, bool and the bits of float16 / bfloat16; uint64_data carries
// uint32 and uint64; string_data the strings), or an external file.
#include "frontend/onnx_tensor.h"

#include <bit>
#include <cstring>

#include "frontend/onnx_external_data.h"
#include "frontend/onnx_types.h"
#include "graph/tensor_type.h"
#include "runtime/error.h"
#include "support/error.h"

namespace tessel::frontend {

namespace {

static_assert(std::endian::native == std::endian::little,
              "ONNX raw_data is little-endian; a big-endian host needs byte swapping here");

using runtime::NDArray;

/// "float32[2, 3]", for size-mismatch messages.
std::string type_text(runtime::DType dtype, const std::vector<int64_t>& shape) {
  std::string text = dtype.to_string() + "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

/// An array of `shape` filled from the typed field `values`, each element converted to Dst.
/// The element count is checked before the array is allocated.
template <class Dst, class Src>
NDArray from_values(const google::protobuf::RepeatedField<Src>& values, const char* field,
                    const std::vector<int64_t>& shape, runtime::DType dtype, int64_t count,
                    const std::string& what) {
  if (values.size() != count)
    TESSEL_USER_ERROR(what, ": ", field, " has ", values.size(), " values, expected ", count,
                      " for ", type_text(dtype, shape));
  NDArray array(shape, dtype);
  Dst* out = static_cast<Dst*>(array.data());
  for (int64_t k = 0; k < count; ++k) out[k] = static_cast<Dst>(values.Get(static_cast<int>(k)));
  return array;
}

/// The array held by the typed field of the tensor's element type.
NDArray from_typed_field(const onnx::TensorProto& proto, const std::vector<int64_t>& shape,
                         runtime::DType dtype, int64_t count, const std::string& what) {
  switch (proto.data_type()) {
    case onnx::TensorProto_DataType_FLOAT:
      return from_values<float>(proto.float_data(), "float_data", shape, dtype, count, what);
    case onnx::TensorProto_DataType_DOUBLE:
      return from_values<double>(proto.double_data(), "double_data", shape, dtype, count, what);
    case onnx::TensorProto_DataType_INT64:
      return from_values<int64_t>(proto.int64_data(), "int64_data", shape, dtype, count, what);
    case onnx::TensorProto_DataType_UINT32:
      return from_values<uint32_t>(proto.uint64_data(), "uint64_data", shape, dtype, count, what);
    case onnx::TensorProto_DataType_UINT64:
      return from_values<uint64_t>(proto.uint64_data(), "uint64_data", shape, dtype, count, what);
    case onnx::TensorProto_DataType_INT32:
      return from_values<int32_t>(proto.int32_data(), "int32_data", shape, dtype, count, what);
    case onnx::TensorProto_DataType_INT16:
      return from_values<int16_t>(proto.int32_data(), "int32_data", shape, dtype, count, what);
    case onnx::TensorProto_DataType_INT8:
      return from_values<int8_t>(proto.int32_data(), "int32_data", shape, dtype, count, what);
    case onnx::TensorProto_DataType_UINT16:
    case onnx::TensorProto_DataType_FLOAT16:
    case onnx::TensorProto_DataType_BFLOAT16:
      return from_values<uint16_t>(proto.int32_data(), "int32_data", shape, dtype, count, what);
    case onnx::TensorProto_DataType_UINT8:
    case onnx::TensorProto_DataType_BOOL:
      return from_values<uint8_t>(proto.int32_data(), "int32_data", shape, dtype, count, what);
    default:
      break;
  }
  TESSEL_INTERNAL_ERROR(what, ": element type ", proto.data_type(),
                        " passed the dtype check but has no typed field");
}

/// Maps every non-zero byte of a bool array to 1, the only true value kernels expect.
void normalize_bools(NDArray& array) {
  if (array.dtype() != runtime::DType::Bool()) return;
  auto* bytes = static_cast<uint8_t*>(array.data());
  for (int64_t k = 0; k < array.nbytes(); ++k) bytes[k] = bytes[k] != 0;
}

/// A string tensor, from string_data (the only place ONNX keeps strings).
NDArray from_string_data(const onnx::TensorProto& proto, const std::vector<int64_t>& shape,
                         int64_t count, const std::string& what) {
  if (proto.data_location() == onnx::TensorProto_DataLocation_EXTERNAL || proto.has_raw_data())
    TESSEL_USER_ERROR(what, ": a string tensor keeps its data in string_data, not in ",
                      proto.has_raw_data() ? "raw_data" : "an external file");
  if (proto.string_data_size() != count)
    TESSEL_USER_ERROR(what, ": string_data has ", proto.string_data_size(), " values, expected ",
                      count, " for ", type_text(runtime::DType::String(), shape));
  NDArray array(shape, runtime::DType::String());
  for (int64_t k = 0; k < count; ++k) {
    try {
      array.set_string(k, proto.string_data(static_cast<int>(k)));
    } catch (const runtime::Error& e) {
      TESSEL_USER_ERROR(what, ": string ", k, ": ", e.what());
    }
  }
  return array;
}

NDArray read_tensor_data(const onnx::TensorProto& proto, const std::string& what,
                         const std::string& external_data_dir) {
  runtime::DType dtype = dtype_from_onnx(proto.data_type(), what);
  if (proto.has_segment()) TESSEL_USER_ERROR(what, ": segmented tensors are not supported");
  std::vector<int64_t> shape(proto.dims().begin(), proto.dims().end());
  int64_t count = graph::checked_num_elements(shape, what);
  if (dtype.is_string()) return from_string_data(proto, shape, count, what);
  int64_t nbytes = count * dtype.bytes();  // <= 2^37: cannot overflow
  if (proto.data_location() == onnx::TensorProto_DataLocation_EXTERNAL) {
    ExternalDataRange range = locate_external_data(proto, what, external_data_dir, nbytes);
    NDArray array(shape, dtype);
    read_external_data(range, what, array.data());
    return array;
  }
  if (proto.has_raw_data()) {
    const std::string& raw = proto.raw_data();
    if (static_cast<int64_t>(raw.size()) != nbytes)
      TESSEL_USER_ERROR(what, ": raw_data has ", raw.size(), " bytes, expected ", nbytes, " for ",
                        type_text(dtype, shape));
    NDArray array(shape, dtype);
    if (nbytes > 0) std::memcpy(array.data(), raw.data(), raw.size());
    return array;
  }
  return from_typed_field(proto, shape, dtype, count, what);
}

}  // namespace

NDArray tensor_from_onnx(const onnx::TensorProto& proto, const std::string& what,
                         const std::string& external_data_dir) {
  NDArray array = read_tensor_data(proto, what, external_data_dir);
  normalize_bools(array);
  return array;
}

onnx::TensorProto tensor_to_onnx(const NDArray& array) {
  if (array.data() == nullptr) TESSEL_USER_ERROR("cannot serialize an array without data");
  onnx::TensorProto proto;
  for (int64_t extent : array.shape()) proto.add_dims(extent);
  proto.set_data_type(dtype_to_onnx(array.dtype()));
  if (array.dtype().is_string()) {
    for (int64_t k = 0; k < array.size(); ++k)
      proto.add_string_data(std::string(array.string_at(k)));
    return proto;
  }
  proto.set_raw_data(static_cast<const char*>(array.data()), static_cast<size_t>(array.nbytes()));
  return proto;
}

}  // namespace tessel::frontend

// NumPy .npy files: reading and writing one array (format versions 1 to 3, little-endian,
// C order; dtypes f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1), and loading an input tensor from
// either a .npy file or an ONNX TensorProto (.pb).
#pragma once

#include <string>

#include "runtime/ndarray.h"

namespace tessel::cli {

/// Reads the .npy file at `path`. Throws CompileError naming the file and the problem for an
/// unreadable or truncated file, a bad header, a big-endian or Fortran-order array or an
/// unsupported dtype.
runtime::NDArray read_npy(const std::string& path);

/// Parses the bytes of a .npy file; `source_name` stands for the file in error messages.
runtime::NDArray parse_npy(const std::string& bytes, const std::string& source_name);

/// Writes `array` to `path` as a version 1.0 .npy file (2.0 when the header needs it).
/// Throws CompileError for an element type NumPy lacks (bfloat16) or a failed write.
void write_npy(const runtime::NDArray& array, const std::string& path);

/// Reads a tensor from a .npy file or, otherwise, a serialized ONNX TensorProto (.pb); the
/// format is told by the file's first bytes.
runtime::NDArray load_tensor_any(const std::string& path);

}  // namespace tessel::cli

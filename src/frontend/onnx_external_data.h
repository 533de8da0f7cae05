// External tensor data: a TensorProto whose data_location is EXTERNAL keeps its bytes in a
// file beside the model (external_data entries "location", "offset", "length").
//
// The location must be a relative path that stays inside the model's folder (no absolute
// path, no ".." component), and the byte range must lie inside the file: both are checked
// before the caller allocates the tensor.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>

namespace tessel::frontend {

/// A checked byte range in an external data file.
struct ExternalDataRange {
  std::string path;
  int64_t offset = 0;
  int64_t length = 0;
};

/// Resolves the external data of `proto` (named `what` in messages) against `dir` and checks
/// that the file holds `nbytes` bytes at the given offset (and that a given "length" equals
/// `nbytes`). Throws CompileError otherwise.
ExternalDataRange locate_external_data(const onnx::TensorProto& proto, const std::string& what,
                                       const std::string& dir, int64_t nbytes);

/// Reads `range` into `dest` (range.length bytes); throws CompileError when the read fails.
void read_external_data(const ExternalDataRange& range, const std::string& what, void* dest);

}  // namespace tessel::frontend

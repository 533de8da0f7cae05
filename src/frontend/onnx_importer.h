// The ONNX frontend: reads an ONNX model (protobuf ModelProto) into tessel's graph IR, and
// reads / writes single tensors stored as serialized TensorProtos (the .pb files of the ONNX
// backend test data).
//
// Every failure (an unreadable file, bytes that are not a model, an unsupported type, a
// dangling value reference, a tensor whose data does not match its shape) throws
// CompileError with a message that starts with the file (or source) name. Sizes are checked
// before anything is allocated, so a hostile file cannot make the importer allocate more
// than the data it actually carries.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "runtime/ndarray.h"
#include "support/error.h"

namespace tessel::frontend {

/// Imports the ONNX model at `path`; external tensor data is resolved relative to the
/// folder that holds the file.
graph::Graph import_onnx_file(const std::string& path);

/// Imports a serialized ModelProto. `source_name` prefixes error messages; external tensor
/// data is resolved relative to `external_data_dir` (a model with external data and an
/// empty `external_data_dir` is an error).
graph::Graph import_onnx_bytes(const std::string& bytes, const std::string& source_name,
                               const std::string& external_data_dir = "");

/// Reads a serialized ONNX TensorProto (e.g. test_data_set_0/input_0.pb); external data is
/// resolved relative to the file's folder.
runtime::NDArray load_tensor_file(const std::string& path);

/// Reads a serialized TensorProto from memory; `source_name` prefixes error messages and
/// external data is resolved relative to `external_data_dir`.
runtime::NDArray import_tensor_bytes(const std::string& bytes, const std::string& source_name,
                                     const std::string& external_data_dir = "");

/// A value of the ONNX backend test data: a tensor, a sequence of tensors, or an optional
/// (empty, or holding a tensor or a sequence).
struct DataValue {
  bool present = true;
  /// The tensor, the sequence's elements, or the optional's tensor or elements.
  std::vector<runtime::NDArray> tensors;
};

/// Reads a serialized TensorProto, SequenceProto (of tensors) or OptionalProto as `kind`
/// says (the kind of the model input or output it is data for).
DataValue load_value_file(const std::string& path, graph::ValueKind kind);

/// Writes `array` as a serialized ONNX TensorProto with raw_data.
void save_tensor_file(const runtime::NDArray& array, const std::string& path);

}  // namespace tessel::frontend

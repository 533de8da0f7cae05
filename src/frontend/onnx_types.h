// ONNX element types and value types as tessel sees them: the mapping between ONNX's
// TensorProto.DataType and runtime::DType, and TypeProto -> graph::TensorType (or the kind
// and element type of a sequence or optional).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>

#include "graph/graph.h"
#include "graph/tensor_type.h"
#include "runtime/ndarray.h"

namespace tessel::frontend {

/// `text` in lower case (ONNX enum names such as "FLOAT" appear lower-cased in messages).
std::string lower_case(std::string text);

/// "float", "string", "complex64", ... (the lower-case ONNX name), or "code N" when unknown.
std::string onnx_elem_type_name(int32_t elem_type);

/// The runtime element type of an ONNX element type. Throws CompileError naming `what`
/// ("tensor 'w'", "value 'x'") for string, complex, undefined and unknown element types.
runtime::DType dtype_from_onnx(int32_t elem_type, const std::string& what);

/// The ONNX element type of a runtime element type.
int32_t dtype_to_onnx(runtime::DType dtype);

/// The TensorType of a value declared with `type`. Throws CompileError naming the value as
/// `what` (e.g. "value 'x' (read by node 'n' (Op))") for a type that is not a tensor
/// (sequence, map, optional, ...), an unsupported element type, a missing shape (unknown
/// rank) or a negative dimension.
graph::TensorType tensor_type_from_onnx(const onnx::TypeProto& type, const std::string& what);

/// A value declared as a sequence of tensors, an optional tensor or an optional sequence of
/// tensors: its kind and element type (the elements' shapes, if declared, are not kept:
/// elements take the shapes of the data given). Nothing for a tensor type. Throws
/// CompileError naming the value for any other type (maps, sequences of sequences, ...) and
/// unsupported element types.
struct StructuredType {
  graph::ValueKind kind = graph::ValueKind::Sequence;
  ir::DataType dtype;
};
std::optional<StructuredType> structured_type_from_onnx(const onnx::TypeProto& type,
                                                        const std::string& value_name);

}  // namespace tessel::frontend

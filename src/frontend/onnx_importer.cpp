// The public entry points of the ONNX frontend: reading files, parsing and checking
// protobufs, and naming the source in every error.
#include "frontend/onnx_importer.h"

#include <onnx/onnx_pb.h>
// after onnx_pb.h, which defines ONNX_API
#include <onnx/onnx-data_pb.h>

#include <climits>
#include <filesystem>
#include <fstream>
#include <new>

#include "frontend/onnx_graph.h"
#include "frontend/onnx_tensor.h"
#include "runtime/error.h"
#include "support/error.h"

namespace tessel::frontend {

namespace {

namespace fs = std::filesystem;

/// Runs `body`, prefixing the message of any error it raises with `source`; allocation and
/// runtime failures become CompileErrors too.
template <class Body>
auto naming_source(const std::string& source, Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const CompileError& e) {
    throw CompileError(source + ": " + e.what());
  } catch (const runtime::Error& e) {
    throw CompileError(source + ": " + e.what());
  } catch (const std::bad_alloc&) {
    throw CompileError(source + ": out of memory");
  }
}

/// The whole content of the file at `path`; `kind` ("ONNX model") names what it should be.
std::string read_file(const std::string& path, const char* kind) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    TESSEL_USER_ERROR("not a valid ", kind, ": no such file (or not a regular file)");
  auto size = fs::file_size(path, ec);
  if (ec) TESSEL_USER_ERROR("not a valid ", kind, ": cannot read the file size");
  if (size == 0) TESSEL_USER_ERROR("not a valid ", kind, ": the file is empty");
  if (size > static_cast<uintmax_t>(INT_MAX))
    TESSEL_USER_ERROR("not a valid ", kind, ": the file has ", size,
                      " bytes, more than protobuf's 2 GiB limit");
  std::string bytes(static_cast<size_t>(size), '\0');
  std::ifstream in(path, std::ios::binary);
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (!in || in.gcount() != static_cast<std::streamsize>(size))
    TESSEL_USER_ERROR("not a valid ", kind, ": cannot read the file");
  return bytes;
}

/// The folder beside `path`, where its external data lives.
std::string folder_of(const std::string& path) {
  fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

/// Parses `bytes` as a ModelProto and checks that the result is a model: protobuf accepts
/// some garbage as unknown fields, so a successful parse alone proves little.
onnx::ModelProto parse_model(const std::string& bytes) {
  if (bytes.empty()) TESSEL_USER_ERROR("not a valid ONNX model: the file is empty");
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes))
    TESSEL_USER_ERROR(
        "not a valid ONNX model: protobuf parsing failed (truncated or corrupt "
        "data)");
  if (!model.has_ir_version() || model.ir_version() <= 0)
    TESSEL_USER_ERROR("not a valid ONNX model: ir_version is not set");
  if (!model.has_graph()) TESSEL_USER_ERROR("not a valid ONNX model: the model has no graph");
  if (model.opset_import_size() == 0)
    TESSEL_USER_ERROR("not a valid ONNX model: the model has no opset_import");
  return model;
}

/// Parses `bytes` as a TensorProto and reads its data.
runtime::NDArray parse_tensor(const std::string& bytes, const std::string& external_data_dir) {
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes))
    TESSEL_USER_ERROR(
        "not a valid ONNX tensor: protobuf parsing failed (truncated or corrupt data)");
  return tensor_from_onnx(proto, "tensor '" + proto.name() + "'", external_data_dir);
}

}  // namespace

graph::Graph import_onnx_file(const std::string& path) {
  return naming_source(path, [&] {
    onnx::ModelProto model = parse_model(read_file(path, "ONNX model"));
    return graph_from_onnx(model, folder_of(path));
  });
}

graph::Graph import_onnx_bytes(const std::string& bytes, const std::string& source_name,
                               const std::string& external_data_dir) {
  return naming_source(source_name, [&] {
    onnx::ModelProto model = parse_model(bytes);
    return graph_from_onnx(model, external_data_dir);
  });
}

runtime::NDArray load_tensor_file(const std::string& path) {
  return naming_source(
      path, [&] { return parse_tensor(read_file(path, "ONNX tensor"), folder_of(path)); });
}

DataValue load_value_file(const std::string& path, graph::ValueKind kind) {
  return naming_source(path, [&] {
    std::string bytes = read_file(path, "ONNX value");
    std::string dir = folder_of(path);
    auto one = [](runtime::NDArray array) {
      DataValue value;
      value.tensors.push_back(std::move(array));
      return value;
    };
    if (kind == graph::ValueKind::Tensor) return one(parse_tensor(bytes, dir));
    auto tensors_of = [&](const onnx::SequenceProto& sequence) {
      if (sequence.elem_type() != onnx::SequenceProto::TENSOR &&
          !(sequence.elem_type() == onnx::SequenceProto::UNDEFINED && sequence.tensor_values_size() == 0))
        TESSEL_USER_ERROR("a sequence of element type ", sequence.elem_type(),
                          ": only sequences of tensors are supported");
      std::vector<runtime::NDArray> tensors;
      for (int k = 0; k < sequence.tensor_values_size(); ++k)
        tensors.push_back(tensor_from_onnx(sequence.tensor_values(k),
                                           "sequence element " + std::to_string(k), dir));
      return tensors;
    };
    if (kind == graph::ValueKind::Sequence) {
      onnx::SequenceProto sequence;
      if (!sequence.ParseFromString(bytes))
        TESSEL_USER_ERROR("not a valid ONNX sequence: protobuf parsing failed");
      return DataValue{true, tensors_of(sequence)};
    }
    onnx::OptionalProto optional;
    if (!optional.ParseFromString(bytes))
      TESSEL_USER_ERROR("not a valid ONNX optional: protobuf parsing failed");
    if (optional.elem_type() == onnx::OptionalProto::UNDEFINED) return DataValue{false, {}};
    bool of_sequence = kind == graph::ValueKind::OptionalSequence;
    if (of_sequence != (optional.elem_type() == onnx::OptionalProto::SEQUENCE) ||
        (!of_sequence && optional.elem_type() != onnx::OptionalProto::TENSOR))
      TESSEL_USER_ERROR("an optional of element type ", optional.elem_type(), ", expected an ",
                        graph::value_kind_name(kind));
    if (of_sequence) return DataValue{true, tensors_of(optional.sequence_value())};
    return one(tensor_from_onnx(optional.tensor_value(), "optional value", dir));
  });
}

runtime::NDArray import_tensor_bytes(const std::string& bytes, const std::string& source_name,
                                     const std::string& external_data_dir) {
  return naming_source(source_name, [&] { return parse_tensor(bytes, external_data_dir); });
}

void save_tensor_file(const runtime::NDArray& array, const std::string& path) {
  naming_source(path, [&] {
    std::string bytes;
    if (!tensor_to_onnx(array).SerializeToString(&bytes))
      TESSEL_USER_ERROR("cannot serialize the tensor");
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) TESSEL_USER_ERROR("cannot write the file");
  });
}

}  // namespace tessel::frontend

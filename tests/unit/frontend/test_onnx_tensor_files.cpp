// Tensor files (.pb TensorProtos) and external tensor data.
#include <gtest/gtest.h>

#include <cstring>

#include "frontend/onnx_importer.h"
#include "frontend/onnx_tensor.h"
#include "onnx_test_util.h"

namespace tessel::frontend {
namespace {

using testing::expect_compile_error;
using testing::float_tensor;
using testing::serialize;
using testing::TempDir;
using testing::write_file;

TEST(OnnxTensorFile, SaveLoadRoundTrip) {
  TempDir dir;
  runtime::NDArray a({2, 3}, runtime::DType::Float(32));
  for (int k = 0; k < 6; ++k) a.data_as<float>()[k] = 0.5f * static_cast<float>(k) - 1.0f;
  save_tensor_file(a, dir.file("a.pb"));
  runtime::NDArray b = load_tensor_file(dir.file("a.pb"));
  ASSERT_EQ(b.shape(), a.shape());
  ASSERT_EQ(b.dtype(), a.dtype());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), 24), 0);

  // The file is an ordinary TensorProto with raw_data.
  onnx::TensorProto proto;
  std::ifstream in(dir.file("a.pb"), std::ios::binary);
  ASSERT_TRUE(proto.ParseFromIstream(&in));
  EXPECT_EQ(proto.data_type(), onnx::TensorProto_DataType_FLOAT);
  EXPECT_EQ(proto.raw_data().size(), 24u);
  EXPECT_EQ(proto.dims_size(), 2);
}

TEST(OnnxTensorFile, LoadsTypedFields) {
  TempDir dir;
  onnx::TensorProto proto;
  proto.set_data_type(onnx::TensorProto_DataType_INT64);
  proto.add_dims(3);
  for (int64_t v : {7, -8, 9}) proto.add_int64_data(v);
  write_file(dir.path() / "i.pb", serialize(proto));
  runtime::NDArray a = load_tensor_file(dir.file("i.pb"));
  ASSERT_EQ(a.dtype(), runtime::DType::Int(64));
  const int64_t* v = a.data_as<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(v, v + 3), (std::vector<int64_t>{7, -8, 9}));
}

TEST(OnnxTensorFile, AbsurdShapeIsRejectedBeforeAllocating) {
  TempDir dir;
  onnx::TensorProto proto = float_tensor("huge", {int64_t{1} << 40}, {});
  write_file(dir.path() / "huge.pb", serialize(proto));
  expect_compile_error([&] { load_tensor_file(dir.file("huge.pb")); },
                       "tensor 'huge': shape has more than 2^34 elements");
}

TEST(OnnxTensorFile, BadFiles) {
  TempDir dir;
  expect_compile_error([&] { load_tensor_file(dir.file("missing.pb")); },
                       "missing.pb: not a valid ONNX tensor: no such file");
  write_file(dir.path() / "empty.pb", "");
  expect_compile_error([&] { load_tensor_file(dir.file("empty.pb")); }, "the file is empty");
  write_file(dir.path() / "short.pb", serialize(float_tensor("s", {4}, {1, 2, 3})));
  expect_compile_error([&] { load_tensor_file(dir.file("short.pb")); },
                       "tensor 's': raw_data has 12 bytes, expected 16 for float32[4]");
  onnx::TensorProto complex;
  complex.set_data_type(onnx::TensorProto_DataType_COMPLEX64);
  write_file(dir.path() / "complex.pb", serialize(complex));
  expect_compile_error([&] { load_tensor_file(dir.file("complex.pb")); },
                       "has element type complex64: not supported");
}

TEST(OnnxTensorFile, StringsLoadFromStringDataAndWriteBack) {
  TempDir dir;
  onnx::TensorProto strings;
  strings.set_data_type(onnx::TensorProto_DataType_STRING);
  strings.add_dims(1);
  strings.add_dims(2);
  strings.add_string_data("hello");
  strings.add_string_data("\xC3\xA9t\xC3\xA9");
  write_file(dir.path() / "str.pb", serialize(strings));
  runtime::NDArray a = load_tensor_file(dir.file("str.pb"));
  ASSERT_EQ(a.dtype(), runtime::DType::String());
  ASSERT_EQ(a.shape(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(a.string_at(0), "hello");
  EXPECT_EQ(a.string_at(1), "\xC3\xA9t\xC3\xA9");
  onnx::TensorProto back = tensor_to_onnx(a);
  EXPECT_EQ(back.data_type(), onnx::TensorProto_DataType_STRING);
  ASSERT_EQ(back.string_data_size(), 2);
  EXPECT_EQ(back.string_data(1), "\xC3\xA9t\xC3\xA9");
  EXPECT_FALSE(back.has_raw_data());
  strings.set_string_data(0, std::string("a\0b", 3));
  write_file(dir.path() / "nul.pb", serialize(strings));
  expect_compile_error([&] { load_tensor_file(dir.file("nul.pb")); },
                       "string 0: a string element holds a NUL character at byte 1");
}

/// A model whose initializer "w" (float[3]) lives in external data at `location`.
onnx::ModelProto external_model(const std::string& location, const std::string& offset,
                                const std::string& length) {
  onnx::ModelProto model = testing::relu_model();
  auto* w = model.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto_DataType_FLOAT);
  w->add_dims(3);
  w->set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  auto entry = [&](const std::string& key, const std::string& value) {
    if (value.empty()) return;
    auto* e = w->add_external_data();
    e->set_key(key);
    e->set_value(value);
  };
  entry("location", location);
  entry("offset", offset);
  entry("length", length);
  return model;
}

class OnnxExternalData : public ::testing::Test {
 protected:
  void SetUp() override {
    // 8 bytes of padding, then the three floats of "w", then 4 more bytes.
    std::string data(8, 'p');
    const float w[3] = {1.5f, -2.0f, 3.25f};
    data.append(reinterpret_cast<const char*>(w), sizeof(w));
    data.append(4, 'q');
    std::filesystem::create_directories(dir_.path() / "data");
    write_file(dir_.path() / "data" / "weights.bin", data);
  }

  /// Writes `model` as model.onnx in the folder and imports it.
  graph::Graph import(const onnx::ModelProto& model) {
    write_file(dir_.path() / "model.onnx", serialize(model));
    return import_onnx_file(dir_.file("model.onnx"));
  }

  TempDir dir_;
};

TEST_F(OnnxExternalData, ReadsTheRangeBesideTheModel) {
  graph::Graph g = import(external_model("data/weights.bin", "8", "12"));
  const float* w = g.find_value("w")->constant->data_as<float>();
  EXPECT_EQ(std::vector<float>(w, w + 3), (std::vector<float>{1.5f, -2.0f, 3.25f}));
}

TEST_F(OnnxExternalData, TensorFileWithExternalData) {
  onnx::TensorProto proto = external_model("data/weights.bin", "8", "").graph().initializer(0);
  write_file(dir_.path() / "w.pb", serialize(proto));
  runtime::NDArray w = load_tensor_file(dir_.file("w.pb"));
  EXPECT_EQ(w.data_as<float>()[2], 3.25f);
}

TEST_F(OnnxExternalData, BadReferences) {
  expect_compile_error([&] { import(external_model("../weights.bin", "", "")); },
                       "initializer 'w': external data location '../weights.bin' leaves the "
                       "model's folder");
  expect_compile_error([&] { import(external_model("/etc/hostname", "", "")); },
                       "is an absolute path");
  expect_compile_error([&] { import(external_model("data/none.bin", "", "")); }, "does not exist");
  expect_compile_error([&] { import(external_model("data/weights.bin", "16", "")); },
                       "has 24 bytes; the tensor needs 12 bytes at offset 16");
  expect_compile_error([&] { import(external_model("data/weights.bin", "8", "16")); },
                       "external data length is 16 bytes, expected 12");
  expect_compile_error([&] { import(external_model("data/weights.bin", "-1", "")); },
                       "entry 'offset' is '-1', expected a non-negative integer");
  expect_compile_error([&] { import(external_model("", "", "")); }, "has no 'location'");
  expect_compile_error(
      [&] { import_onnx_bytes(serialize(external_model("data/weights.bin", "", "")), "mem"); },
      "mem: initializer 'w' has external data in 'data/weights.bin' but no folder was given");
}

}  // namespace
}  // namespace tessel::frontend

// Helpers for the frontend tests: building small ONNX protos, temporary folders, and
// checking that a call fails with a CompileError containing a given text.
#pragma once

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/error.h"

namespace tessel::frontend::testing {

/// Declares `info` as a tensor `name` of `elem_type`; each dim is a number (dim_value), ""
/// (unknown) or a symbol (dim_param).
inline void set_tensor_info(onnx::ValueInfoProto* info, const std::string& name, int32_t elem_type,
                            const std::vector<std::string>& dims) {
  info->set_name(name);
  auto* tensor = info->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(elem_type);
  auto* shape = tensor->mutable_shape();
  for (const std::string& d : dims) {
    auto* dim = shape->add_dim();
    if (d.empty()) continue;
    if (d.find_first_not_of("0123456789") == std::string::npos)
      dim->set_dim_value(std::stoll(d));
    else
      dim->set_dim_param(d);
  }
}

/// A float32 tensor with its values in raw_data.
inline onnx::TensorProto float_tensor(const std::string& name, const std::vector<int64_t>& dims,
                                      const std::vector<float>& values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto_DataType_FLOAT);
  for (int64_t d : dims) t.add_dims(d);
  t.set_raw_data(values.data(), values.size() * sizeof(float));
  return t;
}

/// A model (IR 8, ONNX opset 13) whose graph "g" computes y = Relu(x) for x: float[2].
inline onnx::ModelProto relu_model() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  auto* graph = model.mutable_graph();
  graph->set_name("g");
  set_tensor_info(graph->add_input(), "x", onnx::TensorProto_DataType_FLOAT, {"2"});
  set_tensor_info(graph->add_output(), "y", onnx::TensorProto_DataType_FLOAT, {"2"});
  auto* node = graph->add_node();
  node->set_name("relu");
  node->set_op_type("Relu");
  node->add_input("x");
  node->add_output("y");
  return model;
}

/// relu_model plus a bool input c and z = If(c) whose then_branch gives Add(y, `then_reads`)
/// and whose else_branch gives Neg(x): both branches read values of the main graph.
inline onnx::ModelProto if_model(const std::string& then_reads) {
  onnx::ModelProto model = relu_model();
  auto* graph = model.mutable_graph();
  set_tensor_info(graph->add_input(), "c", onnx::TensorProto_DataType_BOOL, {});
  set_tensor_info(graph->add_output(), "z", onnx::TensorProto_DataType_FLOAT, {"2"});
  auto* node = graph->add_node();
  node->set_name("if");
  node->set_op_type("If");
  node->add_input("c");
  node->add_output("z");
  auto branch = [&](const char* name, const char* op, std::vector<std::string> inputs) {
    auto* attr = node->add_attribute();
    attr->set_name(name);
    attr->set_type(onnx::AttributeProto_AttributeType_GRAPH);
    auto* body = attr->mutable_g();
    body->set_name(name);
    auto* inner = body->add_node();
    inner->set_name(std::string(name) + "_op");
    inner->set_op_type(op);
    for (const std::string& in : inputs) inner->add_input(in);
    inner->add_output(std::string(name) + "_out");
    set_tensor_info(body->add_output(), std::string(name) + "_out",
                    onnx::TensorProto_DataType_FLOAT, {"2"});
  };
  branch("then_branch", "Add", {"y", then_reads});
  branch("else_branch", "Neg", {"x"});
  return model;
}

inline std::string serialize(const google::protobuf::MessageLite& message) {
  std::string bytes;
  EXPECT_TRUE(message.SerializeToString(&bytes));
  return bytes;
}

inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

/// A fresh folder under the system's temporary folder, removed with its content.
class TempDir {
 public:
  TempDir() {
    std::string name = std::string("tessel_frontend_") +
                       ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
                       std::to_string(::getpid());
    path_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

/// Expects `call` to throw a CompileError whose message contains `text`.
template <class Call>
void expect_compile_error(Call&& call, const std::string& text) {
  try {
    call();
    ADD_FAILURE() << "expected a CompileError containing \"" << text << "\"";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos)
        << "message: " << e.what() << "\nexpected to contain: " << text;
  }
}

}  // namespace tessel::frontend::testing

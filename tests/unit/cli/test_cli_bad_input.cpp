// The `tessel` command line on bad models: each bad input gives a message naming the problem
// and a non-zero exit, never a crash or a hang (the runner isolates each case in a process).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <random>
#include <sys/wait.h>

#include "frontend/onnx_importer.h"
#include "unit/cli/cli_test_util.h"
#include "unit/frontend/onnx_test_util.h"

namespace tessel::frontend::testing {
namespace {

using cli_test::CliResult;
using cli_test::run_cli;

/// Writes a test case (model bytes plus one data set with input x = [1, -2]) into `dir`.
void write_case(const std::filesystem::path& dir, const std::string& model_bytes) {
  std::filesystem::create_directories(dir / "test_data_set_0");
  write_file(dir / "model.onnx", model_bytes);
  runtime::NDArray x({2}, runtime::DType::Float(32));
  x.data_as<float>()[0] = 1;
  x.data_as<float>()[1] = -2;
  save_tensor_file(x, (dir / "test_data_set_0" / "input_0.pb").string());
  runtime::NDArray y({2}, runtime::DType::Float(32));
  y.data_as<float>()[0] = 1;
  y.data_as<float>()[1] = 0;
  save_tensor_file(y, (dir / "test_data_set_0" / "output_0.pb").string());
}

void expect_rejected(const std::string& model_bytes, const std::string& text) {
  TempDir dir;
  write_case(dir.path(), model_bytes);
  CliResult r = run_cli("test-onnx " + dir.path().string());
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_LT(r.exit_code, 128) << "crashed: " << r.output;
  EXPECT_NE(r.output.find(text), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("0 passed"), std::string::npos) << r.output;
}

TEST(CliBadInput, ValidModelPasses) {
  TempDir dir;
  write_case(dir.path(), serialize(relu_model()));
  CliResult r = run_cli("test-onnx " + dir.path().string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 passed, 0 failed, 0 skipped"), std::string::npos) << r.output;
}

TEST(CliBadInput, TruncatedModel) {
  std::string bytes = serialize(relu_model());
  expect_rejected(bytes.substr(0, bytes.size() / 2), "not a valid ONNX model");
}

TEST(CliBadInput, RandomBytes) {
  std::mt19937 rng(7);
  std::string bytes(512, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  expect_rejected(bytes, "not a valid ONNX model");
}

TEST(CliBadInput, MissingValue) {
  onnx::ModelProto model = relu_model();
  model.mutable_graph()->mutable_node(0)->set_input(0, "nowhere");
  expect_rejected(serialize(model), "'nowhere'");
}

TEST(CliBadInput, WrongAttributeType) {
  onnx::ModelProto model = relu_model();
  auto* node = model.mutable_graph()->mutable_node(0);
  node->set_op_type("LeakyRelu");
  auto* alpha = node->add_attribute();
  alpha->set_name("alpha");
  alpha->set_type(onnx::AttributeProto_AttributeType_STRING);
  alpha->set_s("0.1");
  expect_rejected(serialize(model), "attribute 'alpha' must be of type float, found string");
}

TEST(CliBadInput, AbsurdShape) {
  onnx::ModelProto model = relu_model();
  auto* graph = model.mutable_graph();
  onnx::TensorProto* init = graph->add_initializer();
  init->set_name("huge");
  init->set_data_type(onnx::TensorProto_DataType_FLOAT);
  init->add_dims(int64_t{1} << 40);
  auto* node = graph->mutable_node(0);
  node->set_op_type("Add");
  node->add_input("huge");
  expect_rejected(serialize(model), "2^34");
}

TEST(CliBadInput, UnknownOptionAndMissingFolder) {
  CliResult r = run_cli("test-onnx --bogus");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("unknown option --bogus"), std::string::npos) << r.output;
  r = run_cli("test-onnx /nonexistent/cases");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("'/nonexistent/cases' is not a folder"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace tessel::frontend::testing

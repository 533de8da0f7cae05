// `tessel run` on the deploy tests' tiny model library: inputs from .npy (named or by
// position) and .pb files, outputs printed and written as .npy, and the errors for bad
// libraries, bad input files and mismatched inputs.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "frontend/onnx_importer.h"
#include "unit/cli/cli_test_util.h"
#include "unit/deploy/tiny_model.h"

namespace tessel::deploy_test {
namespace {

using cli_test::CliResult;
using cli_test::run_cli;

/// A version 1.0 .npy file, written here byte by byte (independently of tessel's writer).
std::string npy_bytes(const std::string& descr, const std::string& shape, const void* data,
                      size_t nbytes) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string bytes = "\x93NUMPY\x01";
  bytes += '\0';
  bytes += static_cast<char>(dict.size() & 0xff);
  bytes += static_cast<char>(dict.size() >> 8);
  return bytes + dict + std::string(static_cast<const char*>(data), nbytes);
}

void write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// The float32 data of a [4, 8] .npy file.
std::vector<float> npy_floats(const std::string& path) {
  cli_test::NpyFloats npy = cli_test::read_npy_floats(path);
  EXPECT_NE(npy.header.find("'descr': '<f4'"), std::string::npos);
  EXPECT_NE(npy.header.find("'shape': (4, 8)"), std::string::npos);
  return npy.data;
}

class CliRun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_path("cli_run_" +
                     std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::create_directories(dir_);
    x_ = tiny_input(6);
    write(file("x.npy"), npy_bytes("<f4", "(4, 8)", x_.data(), x_.size() * 4));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string file(const std::string& name) const { return dir_ + "/" + name; }
  void expect_fails(const std::string& arguments, const std::string& text) {
    CliResult r = run_cli("run " + arguments);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(text), std::string::npos) << r.output;
  }

  std::string dir_;
  std::vector<float> x_;
};

TEST_F(CliRun, NamedInputPrintsAndWritesOutputs) {
  CliResult r = run_cli("run " + tiny_library() + " --input x=" + file("x.npy") + " --output-dir " +
                        file("out"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::vector<float>> ref = tiny_reference(x_);
  char first[64];
  std::snprintf(first, sizeof first, "z: float32[4, 8] = %.6g %.6g", ref[0][0], ref[0][1]);
  EXPECT_NE(r.output.find(first), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("y: float32[4, 8] = "), std::string::npos) << r.output;
  EXPECT_EQ(npy_floats(file("out/z.npy")), ref[0]);
  EXPECT_EQ(npy_floats(file("out/y.npy")), ref[1]);
}

TEST_F(CliRun, PositionalNpyAndPbInputs) {
  CliResult r = run_cli("run " + tiny_library() + " --input " + file("x.npy") + " --profile");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Relu+Add (tiny_relu_add)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("over 2 steps"), std::string::npos) << r.output;

  runtime::NDArray x({kRows, kCols}, runtime::DType::Float(32));
  std::memcpy(x.data(), x_.data(), x_.size() * 4);
  frontend::save_tensor_file(x, file("x.pb"));
  CliResult pb = run_cli("run " + tiny_library() + " --input x=" + file("x.pb"));
  ASSERT_EQ(pb.exit_code, 0) << pb.output;
  EXPECT_EQ(pb.output, r.output.substr(0, pb.output.size()));
}

TEST_F(CliRun, BadLibraries) {
  expect_fails(file("none.so") + " --input " + file("x.npy"), "no such file");
  std::ifstream in(tiny_library(), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  write(file("half.so"), bytes.substr(0, bytes.size() / 2));
  expect_fails(file("half.so") + " --input " + file("x.npy"),
               "cannot load module '" + file("half.so") + "'");
  expect_fails("", "no model given");
}

TEST_F(CliRun, BadInputs) {
  std::string model = tiny_library() + " ";
  expect_fails(model, "missing input 0 ('x')");
  expect_fails(model + "--input nope=" + file("x.npy"),
               "the model has no input 'nope' (its inputs: x)");
  expect_fails(model + "--input " + file("x.npy") + " --input " + file("x.npy"),
               "too many inputs: the model takes 1 (x)");
  write(file("t.npy"), npy_bytes("<f4", "(8, 4)", x_.data(), x_.size() * 4));
  expect_fails(model + "--input " + file("t.npy"),
               "input 0 ('x'): expected shape [4, 8], got [8, 4]");
  std::vector<double> wide(kSize);
  write(file("d.npy"), npy_bytes("<f8", "(4, 8)", wide.data(), wide.size() * 8));
  expect_fails(model + "--input " + file("d.npy"), "input 0 ('x'): expected float32, got float64");
  std::string full = npy_bytes("<f4", "(4, 8)", x_.data(), x_.size() * 4);
  write(file("short.npy"), full.substr(0, full.size() - 5));
  expect_fails(model + "--input " + file("short.npy"),
               "'" + file("short.npy") + "': truncated: 123 data bytes for 128 expected");
  write(file("big.npy"), npy_bytes(">f4", "(4, 8)", x_.data(), x_.size() * 4));
  expect_fails(model + "--input " + file("big.npy"), "big-endian data ('>f4') is not supported");
  write(file("c.npy"), npy_bytes("<c8", "(4, 8)", x_.data(), x_.size() * 4));
  expect_fails(model + "--input " + file("c.npy"), "unsupported dtype '<c8'");
  expect_fails(model + "--input " + file("missing.npy"), "cannot open the file");
  expect_fails(model + "--bogus", "unknown option --bogus");
}

}  // namespace
}  // namespace tessel::deploy_test

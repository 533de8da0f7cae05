// Running the `tessel` program from the CLI tests: its exit code and its output.
#pragma once

#include <sys/wait.h>

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace tessel::cli_test {

struct CliResult {
  int exit_code = -1;
  std::string output;
};

/// Runs `tessel <arguments>` (stdout and stderr together); a signal gives 128 + its number.
inline CliResult run_cli(const std::string& arguments) {
  std::string command = std::string(TESSEL_CLI_PATH) + " " + arguments + " 2>&1";
  CliResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer;
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe))
    result.output.append(buffer.data(), n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

/// A .npy file as read by the tests: its header text and its float32 data (the header
/// length is little-endian at byte 8; the caller checks the header).
struct NpyFloats {
  std::string header;
  std::vector<float> data;
};

inline NpyFloats read_npy_floats(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  NpyFloats result;
  if (bytes.size() < 10) return result;
  size_t start = 10 + (static_cast<uint8_t>(bytes[8]) | static_cast<uint8_t>(bytes[9]) << 8);
  if (start > bytes.size()) return result;
  result.header = bytes.substr(10, start - 10);
  result.data.resize((bytes.size() - start) / 4);
  std::memcpy(result.data.data(), bytes.data() + start, result.data.size() * 4);
  return result;
}

/// A test on one ONNX backend case (skipped when the test data is not installed), with a
/// fresh directory named after the test.
class CaseTest : public ::testing::Test {
 protected:
  CaseTest(std::filesystem::path case_dir, std::string prefix)
      : case_(std::move(case_dir)), prefix_(std::move(prefix)) {}
  void SetUp() override {
    if (!std::filesystem::exists(case_)) GTEST_SKIP() << "ONNX test data not installed";
    dir_ = std::filesystem::temp_directory_path() /
           (prefix_ + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string model() const { return (case_ / "model.onnx").string(); }
  /// A file of the case's first test data set.
  std::string data(const std::string& name) const {
    return (case_ / "test_data_set_0" / name).string();
  }

  std::filesystem::path case_;
  std::string prefix_;
  std::filesystem::path dir_;
};

}  // namespace tessel::cli_test

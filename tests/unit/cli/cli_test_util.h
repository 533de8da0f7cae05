// Running the `tessel` program from the CLI tests: its exit code and its output.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstring>
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

}  // namespace tessel::cli_test

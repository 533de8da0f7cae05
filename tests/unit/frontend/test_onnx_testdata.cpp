// Imports every model of the ONNX backend node tests (Debian's libonnx-testdata) and the
// tensors of its first data set: each must import or fail with a CompileError.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include "frontend/onnx_importer.h"

namespace tessel::frontend {
namespace {

namespace fs = std::filesystem;

const char* const kNodeTests = "/usr/share/libonnx-testdata/data/node";

/// The message without the file name and with every quoted name replaced by '*': the kind of
/// failure.
std::string failure_kind(const std::string& message, const std::string& path) {
  std::string rest = message.rfind(path, 0) == 0 ? message.substr(path.size() + 2) : message;
  std::string kind;
  bool quoted = false;
  for (char c : rest) {
    if (c == '\'') {
      if (!quoted) kind += "'*'";
      quoted = !quoted;
    } else if (!quoted) {
      kind += c;
    }
  }
  return kind;
}

TEST(OnnxTestData, NodeModelsImport) {
  if (!fs::is_directory(kNodeTests)) GTEST_SKIP() << kNodeTests << " is not installed";
  std::vector<fs::path> cases;
  for (const fs::directory_entry& entry : fs::directory_iterator(kNodeTests))
    if (fs::exists(entry.path() / "model.onnx")) cases.push_back(entry.path());
  std::sort(cases.begin(), cases.end());

  int imported = 0;
  int tensors = 0;
  std::map<std::string, std::vector<std::string>> failures;  // kind -> cases
  for (const fs::path& dir : cases) {
    const std::string model = (dir / "model.onnx").string();
    try {
      graph::Graph g = import_onnx_file(model);
      EXPECT_FALSE(g.outputs().empty()) << model;
      ++imported;
    } catch (const CompileError& e) {
      failures[failure_kind(e.what(), model)].push_back(dir.filename().string());
    } catch (const std::exception& e) {
      ADD_FAILURE() << model << ": not a CompileError: " << e.what();
    }
    const fs::path data = dir / "test_data_set_0";
    if (!fs::is_directory(data)) continue;
    for (const fs::directory_entry& file : fs::directory_iterator(data)) {
      if (file.path().extension() != ".pb") continue;
      try {
        load_tensor_file(file.path().string());
        ++tensors;
      } catch (const CompileError&) {  // sequences, strings: reported by the model already
      } catch (const std::exception& e) {
        ADD_FAILURE() << file.path() << ": not a CompileError: " << e.what();
      }
    }
  }
  std::cout << "imported " << imported << " of " << cases.size() << " node test models; loaded "
            << tensors << " tensors\n";
  for (const auto& [kind, names] : failures) {
    std::cout << "  " << names.size() << " x " << kind << " (e.g. " << names.front() << ")\n";
  }
  EXPECT_GE(imported, 850);
}

}  // namespace
}  // namespace tessel::frontend

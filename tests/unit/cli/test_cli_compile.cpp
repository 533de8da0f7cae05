// `tessel compile`, `run`, `inspect` and `bench` on an ONNX backend case: the compiled
// library computes the case's expected output; bad models, inputs and libraries give a
// clear message and a non-zero exit.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "frontend/onnx_importer.h"
#include "unit/cli/cli_test_util.h"

namespace tessel::cli_test {
namespace {

namespace fs = std::filesystem;

const fs::path kCase = "/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding";

class CliCompile : public CaseTest {
 protected:
  CliCompile() : CaseTest(kCase, "tessel_cli_compile_") {}
  std::string input(int k) const { return data("input_" + std::to_string(k) + ".pb"); }
  /// Compiles the case into model.so.
  void compile() {
    CliResult r = run_cli("compile " + model() + " -o " + path("model.so"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("wrote "), std::string::npos) << r.output;
  }
};

TEST_F(CliCompile, CompiledLibraryComputesTheExpectedOutput) {
  compile();
  CliResult r = run_cli("run " + path("model.so") + " --input x=" + input(0) + " --input W=" +
                        input(1) + " --output-dir " + path("out"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  NpyFloats y = read_npy_floats(path("out/y.npy"));
  runtime::NDArray expected = frontend::load_tensor_file(
      (kCase / "test_data_set_0" / "output_0.pb").string());
  ASSERT_EQ(static_cast<int64_t>(y.data.size()), expected.size()) << y.header;
  for (int64_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(y.data[i], expected.data_as<float>()[i], 1e-4 + 1e-4 * std::abs(y.data[i]));
}

TEST_F(CliCompile, InspectShowsPassesGroupsAndMemory) {
  CliResult r = run_cli("inspect " + (kCase / "model.onnx").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* part : {"== fused groups:", "== memory plan:", "Conv"})
    EXPECT_NE(r.output.find(part), std::string::npos) << part << "\n" << r.output;
}

TEST_F(CliCompile, BenchEndsWithTheLatencyLine) {
  compile();
  for (const std::string& model : {(kCase / "model.onnx").string(), path("model.so")}) {
    CliResult r = run_cli("bench " + model + " --threads 1 --runs 5 --warmup 1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("per-kernel profile"), std::string::npos) << r.output;
    std::string last = r.output.substr(r.output.rfind('\n', r.output.size() - 2) + 1);
    std::string name = model.ends_with(".so") ? "model" : "test_conv_with_strides_padding";
    EXPECT_EQ(last.rfind(name + " threads=1: median ", 0), 0u) << last;
    EXPECT_NE(last.find(" ms, p90 "), std::string::npos) << last;
  }
}

TEST_F(CliCompile, BenchReportsResidentMemoryOverTheRuns) {
  compile();
  CliResult r = run_cli("bench " + path("model.so") + " --threads 1 --runs 1500 --warmup 1 " +
                        "--no-profile --memory");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* part : {"resident memory: ", " KiB after 1 warm-up runs, ",
                           " KiB after 1000 runs, ", " KiB after 1500 runs (peak "})
    EXPECT_NE(r.output.find(part), std::string::npos) << part << "\n" << r.output;
}

TEST_F(CliCompile, BadModelsInputsAndLibrariesAreReported) {
  compile();
  // A truncated model.
  std::ifstream in(kCase / "model.onnx", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream(path("cut.onnx"), std::ios::binary).write(bytes.data(), bytes.size() / 2);
  struct Case {
    std::string arguments, message;
  };
  std::vector<Case> cases = {
      {"compile " + path("cut.onnx") + " -o " + path("cut.so"), "cut.onnx"},
      {"compile " + path("missing.onnx") + " -o " + path("m.so"), "missing.onnx"},
      {"compile " + (kCase / "model.onnx").string(), "usage: tessel compile"},
      {"compile " + (kCase / "model.onnx").string() + " -o " + path("x.so") +
           " --input-shape nope=1x2",
       "no input named 'nope'"},
      {"compile " + (kCase / "model.onnx").string() + " -o " + path("x.so") +
           " --input-shape x=Nx1x7x5",
       "input 'x' declares a batch of 1"},
      {"compile " + (kCase / "model.onnx").string() + " -o " + path("x.so") +
           " --input-shape x=1x1x7x-5",
       "is not a shape like 1x3x224x224 or Nx3x224x224"},
      {"bench " + path("model.so") + " --batch 2 --runs 1", "compiled for static shapes"},
      {"run " + path("model.so") + " --input nope=" + input(0), "nope"},
      {"run " + path("model.so") + " --input x=" + input(1) + " --input W=" + input(1), "shape"},
      {"run " + path("missing.so") + " --input x=" + input(0), "missing.so"},
      {"bench " + path("missing.so"), "missing.so"},
  };
  // A truncated library.
  std::ifstream so(path("model.so"), std::ios::binary);
  std::string so_bytes((std::istreambuf_iterator<char>(so)), std::istreambuf_iterator<char>());
  std::ofstream(path("cut.so"), std::ios::binary).write(so_bytes.data(), so_bytes.size() / 3);
  cases.push_back({"run " + path("cut.so") + " --input x=" + input(0), "cut.so"});
  for (const Case& c : cases) {
    CliResult r = run_cli(c.arguments);
    EXPECT_NE(r.exit_code, 0) << c.arguments << "\n" << r.output;
    EXPECT_LT(r.exit_code, 128) << "crashed: " << c.arguments << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.arguments << "\n" << r.output;
  }
}

/// SequenceInsert(sequence, tensor): a model with a sequence input.
class CliSequence : public CaseTest {
 protected:
  CliSequence()
      : CaseTest("/usr/share/libonnx-testdata/data/node/test_sequence_insert_at_back",
                 "tessel_cli_sequence_") {}
};

TEST_F(CliSequence, ASequenceInputIsCompiledForTheElementsGiven) {
  CliResult r = run_cli("compile " + model() + " -o " + path("model.so"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("input 'sequence' is a sequence: give its elements' shapes with "
                          "--input-shape sequence=[2x3,5]"),
            std::string::npos)
      << r.output;
  r = run_cli("inspect " + model() + " --input-shape sequence=[3,3]");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* part : {"output_sequence[0] [3]", "output_sequence[2] [3]"})
    EXPECT_NE(r.output.find(part), std::string::npos) << part << "\n" << r.output;
  r = run_cli("compile " + model() + " -o " + path("model.so") + " --input-shape sequence=[3,3");
  EXPECT_NE(r.output.find("--input-shape: '[3,3' opens a list of shapes it does not close"),
            std::string::npos)
      << r.output;
  r = run_cli("compile " + model() + " -o " + path("model.so") + " --input-shape tensor=[3]");
  EXPECT_NE(r.output.find("input shapes: input 'tensor' is a tensor: give it one shape"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace tessel::cli_test

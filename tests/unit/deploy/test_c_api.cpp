// The compiled-model C API (tessel_model_* in tessel_runtime.h), its header-only C++
// wrapper (tessel_model.hpp) and the C example examples/run_model.c, on the tiny model.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "runtime/tessel_model.hpp"
#include "runtime/tessel_runtime.h"
#include "unit/deploy/tiny_model.h"

namespace tessel::deploy_test {
namespace {

TEST(ModelCApi, LoadsRunsAndDescribes) {
  tessel_model* model = nullptr;
  ASSERT_EQ(tessel_model_load(tiny_library().c_str(), &model), TESSEL_OK) << tessel_last_error();
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(tessel_model_num_inputs(model), 1);
  EXPECT_EQ(tessel_model_num_outputs(model), 2);

  const char* name = nullptr;
  int32_t code = -1, bits = -1, ndim = -1;
  const int64_t* shape = nullptr;
  int64_t nbytes = -1;
  ASSERT_EQ(tessel_model_input_info(model, 0, &name, &code, &bits, &ndim, &shape, &nbytes),
            TESSEL_OK);
  EXPECT_STREQ(name, "x");
  EXPECT_EQ(code, 2);
  EXPECT_EQ(bits, 32);
  ASSERT_EQ(ndim, 2);
  EXPECT_EQ(shape[0], kRows);
  EXPECT_EQ(shape[1], kCols);
  EXPECT_EQ(nbytes, kSize * 4);
  ASSERT_EQ(tessel_model_output_info(model, 1, &name, nullptr, nullptr, nullptr, nullptr, nullptr),
            TESSEL_OK);
  EXPECT_STREQ(name, "y");

  std::vector<float> out(kSize);
  EXPECT_EQ(tessel_model_get_output(model, 0, out.data(), kSize * 4), TESSEL_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tessel_last_error(),
               "tessel_model_get_output: the model has not run yet (call tessel_model_run)");

  for (int seed = 0; seed < 2; ++seed) {
    std::vector<float> x = tiny_input(seed);
    ASSERT_EQ(tessel_model_set_input(model, 0, x.data(), kSize * 4), TESSEL_OK);
    ASSERT_EQ(tessel_model_run(model), TESSEL_OK) << tessel_last_error();
    std::vector<std::vector<float>> ref = tiny_reference(x);
    for (int i = 0; i < 2; ++i) {
      ASSERT_EQ(tessel_model_get_output(model, i, out.data(), kSize * 4), TESSEL_OK);
      EXPECT_EQ(out, ref[static_cast<size_t>(i)]) << "output " << i;
    }
  }
  ASSERT_EQ(tessel_model_set_num_threads(model, 1), TESSEL_OK);
  ASSERT_EQ(tessel_model_run(model), TESSEL_OK);
  tessel_model_free(model);
  tessel_set_num_threads(0);
}

TEST(ModelCApi, ErrorsAreStatusesWithMessages) {
  tessel_model* model = reinterpret_cast<tessel_model*>(1);
  std::string missing = temp_path("missing_c.so");
  EXPECT_EQ(tessel_model_load(missing.c_str(), &model), TESSEL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(model, nullptr);
  EXPECT_EQ(std::string(tessel_last_error()),
            "tessel_model_load: cannot load module '" + missing + "': no such file");
  EXPECT_EQ(tessel_model_load(nullptr, &model), TESSEL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tessel_model_load(missing.c_str(), nullptr), TESSEL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tessel_model_num_inputs(nullptr), -1);
  EXPECT_EQ(tessel_model_run(nullptr), TESSEL_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tessel_last_error(), "tessel_model_run: the model is NULL");
  tessel_model_free(nullptr);

  ASSERT_EQ(tessel_model_load(tiny_library().c_str(), &model), TESSEL_OK);
  std::vector<float> x(kSize);
  EXPECT_EQ(tessel_model_set_input(model, 0, x.data(), 4), TESSEL_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tessel_last_error(), "tessel_model_set_input: input 0 ('x') has 128 bytes, got 4");
  EXPECT_EQ(tessel_model_set_input(model, 1, x.data(), 128), TESSEL_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tessel_last_error(),
               "tessel_model_set_input: model 'tiny' has 1 inputs, asked for input 1");
  EXPECT_EQ(
      tessel_model_input_info(model, -1, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr),
      TESSEL_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tessel_last_error(), "tessel_model_input_info: index -1 is negative");
  EXPECT_EQ(tessel_model_set_num_threads(model, -3), TESSEL_ERR_INVALID_ARGUMENT);
  tessel_model_free(model);
}

TEST(ModelCppWrapper, RunsAndThrows) {
  tessel::CompiledModel model(tiny_library());
  ASSERT_EQ(model.num_inputs(), 1);
  tessel::TensorInfo info = model.input_info(0);
  EXPECT_EQ(info.name, "x");
  EXPECT_EQ(info.shape, (std::vector<int64_t>{kRows, kCols}));
  EXPECT_EQ(model.output_info(0).name, "z");
  std::vector<float> x = tiny_input(3);
  model.set_input(0, x);
  model.run();
  std::vector<std::vector<float>> ref = tiny_reference(x);
  EXPECT_EQ(model.output<float>(0), ref[0]);
  EXPECT_EQ(model.output<float>(1), ref[1]);
  tessel::CompiledModel moved = std::move(model);
  EXPECT_EQ(moved.output<float>(1), ref[1]);
  try {
    moved.set_input(0, std::vector<double>(3));
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "tessel_model_set_input: input 0 ('x') has 128 bytes, got 24");
  }
  EXPECT_THROW(tessel::CompiledModel(temp_path("missing_cpp.so")), std::runtime_error);
}

/// Runs `command` through the shell; returns its exit status and combined output.
int run(const std::string& command, std::string& output) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  std::array<char, 4096> buffer;
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), n);
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// The values printed after the last ':' of the example's line for output `name`.
std::vector<float> printed_values(const std::string& output, const std::string& name) {
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("output " + name + ":", 0) != 0) continue;
    std::istringstream values(line.substr(line.rfind(':') + 1));
    std::vector<float> v;
    for (float f; values >> f;) v.push_back(f);
    return v;
  }
  return {};
}

TEST(RunModelExample, RunsOnARawInputFile) {
  std::vector<float> x = tiny_input(2);
  std::string input = temp_path("x.raw");
  std::ofstream(input, std::ios::binary)
      .write(reinterpret_cast<const char*>(x.data()), static_cast<std::streamsize>(kSize * 4));
  std::string output;
  int status =
      run(std::string(TESSEL_RUN_MODEL_EXAMPLE) + " " + tiny_library() + " " + input, output);
  std::filesystem::remove(input);
  ASSERT_EQ(status, 0) << output;
  EXPECT_NE(output.find("input x: float32 [4, 8] from " + input), std::string::npos) << output;
  EXPECT_NE(output.find("output z: float32 [4, 8]"), std::string::npos) << output;
  std::vector<std::vector<float>> ref = tiny_reference(x);
  std::vector<float> z = printed_values(output, "z"), y = printed_values(output, "y");
  ASSERT_EQ(z.size(), 8u) << output;
  ASSERT_EQ(y.size(), 8u) << output;
  for (size_t k = 0; k < 8; ++k) {
    EXPECT_FLOAT_EQ(z[k], ref[0][k]);
    EXPECT_FLOAT_EQ(y[k], ref[1][k]);
  }

  // A missing model and a raw file of the wrong size fail with a message.
  output.clear();
  EXPECT_EQ(run(std::string(TESSEL_RUN_MODEL_EXAMPLE) + " " + temp_path("none.so"), output), 1);
  EXPECT_NE(output.find("no such file"), std::string::npos) << output;
  output.clear();
  EXPECT_EQ(run(std::string(TESSEL_RUN_MODEL_EXAMPLE) + " " + tiny_library() + " " + tiny_library(),
                output),
            1);
  EXPECT_NE(output.find("bytes, expected 128"), std::string::npos) << output;
}

}  // namespace
}  // namespace tessel::deploy_test

// runtime::Model end to end: export the tiny model (tiny_model.h) to a .so, load it with the
// runtime alone, run it and compare with a naive loop; the JIT constructor; the errors for
// bad libraries, bad plans and bad inputs.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>

#include "codegen/llvm/aot.h"
#include "codegen/llvm/jit.h"
#include "runtime/error.h"
#include "runtime/model.h"
#include "runtime/module.h"
#include "support/error.h"
#include "target/host.h"
#include "target/parse_target.h"
#include "unit/deploy/tiny_model.h"

namespace tessel::deploy_test {
namespace {

using runtime::DType;
using runtime::Model;
using runtime::NDArray;

NDArray array_of(const std::vector<float>& values, std::vector<int64_t> shape = {kRows, kCols}) {
  NDArray a(std::move(shape), DType::Float(32));
  std::memcpy(a.data(), values.data(), values.size() * sizeof(float));
  return a;
}

std::vector<float> values_of(const NDArray& a) {
  std::vector<float> v(static_cast<size_t>(a.size()));
  std::memcpy(v.data(), a.data(), v.size() * sizeof(float));
  return v;
}

/// Runs `model` on x and checks both outputs against the naive loop.
void expect_matches_reference(Model& model, const std::vector<float>& x) {
  NDArray input = array_of(x);
  std::vector<NDArray> out = model.run({&input});
  ASSERT_EQ(out.size(), 2u);
  std::vector<std::vector<float>> ref = tiny_reference(x);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(out[i].shape(), (std::vector<int64_t>{kRows, kCols}));
    EXPECT_EQ(values_of(out[i]), ref[i]) << "output " << i;
  }
}

std::string load_error(const std::string& path) {
  try {
    Model::load(path);
  } catch (const runtime::Error& e) {
    return e.what();
  }
  return "";
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(Model, LoadsAndRunsAnExportedLibrary) {
  Model model = Model::load(tiny_library());
  EXPECT_EQ(model.plan().name, "tiny");
  ASSERT_EQ(model.num_inputs(), 1u);
  ASSERT_EQ(model.num_outputs(), 2u);
  EXPECT_EQ(model.input(0).name, "x");
  EXPECT_EQ(model.output(0).name, "z");
  EXPECT_EQ(model.output(1).name, "y");
  EXPECT_EQ(model.input_nbytes(0), kSize * 4);
  // Several runs reuse the arena; each gives the right answer.
  for (int seed = 0; seed < 3; ++seed) expect_matches_reference(model, tiny_input(seed));
  EXPECT_TRUE(model.step_times_ms().empty());
  model.set_profiling(true);
  expect_matches_reference(model, tiny_input(4));
  ASSERT_EQ(model.step_times_ms().size(), 2u);
  for (double t : model.step_times_ms()) EXPECT_GE(t, 0.0);
  // The plan's two threads are applied, and a caller's choice overrides them.
  EXPECT_EQ(tessel_get_num_threads(), 2);
  model.set_num_threads(1);
  expect_matches_reference(model, tiny_input(5));
  EXPECT_EQ(tessel_get_num_threads(), 1);
  tessel_set_num_threads(0);
}

TEST(Model, RawRunCopiesMisalignedInputs) {
  Model model = Model::load(tiny_library());
  std::vector<float> x = tiny_input(7);
  std::vector<std::vector<float>> ref = tiny_reference(x);
  // x one float past a 64-byte boundary.
  NDArray storage({kSize + 16}, DType::Float(32));
  float* misaligned = storage.data_as<float>() + 1;
  std::memcpy(misaligned, x.data(), x.size() * sizeof(float));
  std::vector<float> z(kSize), y(kSize);
  const void* inputs[] = {misaligned};
  void* outputs[] = {z.data(), y.data()};
  model.run_raw(inputs, outputs);
  EXPECT_EQ(z, ref[0]);
  EXPECT_EQ(y, ref[1]);
  std::vector<float> z2(kSize);
  std::memcpy(z2.data(), model.output_data(0), z2.size() * sizeof(float));
  EXPECT_EQ(z2, ref[0]);
  // A null output is skipped.
  void* only_y[] = {nullptr, y.data()};
  model.run_raw(inputs, only_y);
  EXPECT_EQ(y, ref[1]);
}

TEST(Model, JitConstructor) {
  TinyModel m = tiny_model();
  auto jit = std::make_shared<codegen::JitModule>(m.kernels);
  NDArray weights({m.plan.weights_bytes}, DType::UInt(8));
  std::memcpy(weights.data(), m.weights.data(), m.weights.size());
  Model model(m.plan, weights.data(), jit,
              [&](const std::string& name) { return jit->get_function(name); });
  expect_matches_reference(model, tiny_input(1));

  // Misaligned weights, a missing kernel and a failing lookup are errors naming the problem.
  std::string e = error_of([&] {
    Model(m.plan, static_cast<uint8_t*>(weights.data()) + 4, jit,
          [&](const std::string& name) { return jit->get_function(name); });
  });
  EXPECT_EQ(e, "model 'tiny': the weights are not 64-byte aligned");
  e = error_of(
      [&] { Model(m.plan, weights.data(), jit, [](const std::string&) { return nullptr; }); });
  EXPECT_EQ(e, "model 'tiny': step 0 ('Mul'): missing kernel 'tiny_mul'");
  e = error_of([&] {
    Model(m.plan, weights.data(), jit, [](const std::string& name) -> tessel_kernel {
      throw runtime::Error("no '" + name + "' here");
    });
  });
  EXPECT_EQ(e, "model 'tiny': step 0 ('Mul'): cannot find kernel 'tiny_mul': no 'tiny_mul' here");
  // The plan is checked as a loaded one is.
  m.plan.steps[1].args[0] = 42;
  e = error_of(
      [&] { Model(m.plan, weights.data(), jit, [](const std::string&) { return nullptr; }); });
  EXPECT_NE(e.find("tensor id 42 out of range"), std::string::npos) << e;
}

TEST(Model, InputErrorsNameTheInput) {
  Model model = Model::load(tiny_library());
  NDArray x = array_of(tiny_input(0));
  EXPECT_EQ(error_of([&] { model.run({}); }), "model 'tiny' takes 1 inputs, got 0");
  EXPECT_EQ(error_of([&] { model.run({&x, &x}); }), "model 'tiny' takes 1 inputs, got 2");
  NDArray wrong_shape = array_of(tiny_input(0), {kCols, kRows});
  EXPECT_EQ(error_of([&] { model.run({&wrong_shape}); }),
            "input 0 ('x'): expected shape [4, 8], got [8, 4]");
  NDArray wrong_dtype({kRows, kCols}, DType::Int(32));
  EXPECT_EQ(error_of([&] { model.run({&wrong_dtype}); }),
            "input 0 ('x'): expected float32, got int32");
  EXPECT_EQ(error_of([&] { model.run({nullptr}); }), "input 0 ('x') is null");
  EXPECT_EQ(error_of([&] { model.input(1); }), "model 'tiny' has 1 inputs, asked for input 1");
}

TEST(Model, LoadErrors) {
  std::string missing = temp_path("missing.so");
  EXPECT_EQ(load_error(missing), "cannot load module '" + missing + "': no such file");

  // Prefixes of a valid library, down to one byte short: each fails naming the path and the
  // truncation (dlopen alone accepts a library cut after its loaded segments, and dies of
  // SIGBUS mapping segments past the end of the file).
  std::string truncated = temp_path("truncated.so");
  std::ifstream in(tiny_library(), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t sixteenths = 1; sixteenths <= 16; ++sixteenths) {
    size_t size = sixteenths == 16 ? bytes.size() - 1 : bytes.size() * sixteenths / 16;
    std::ofstream(truncated, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(size));
    std::string e = load_error(truncated);
    EXPECT_EQ(e.rfind("cannot load module '" + truncated + "': truncated or corrupt ELF file", 0),
              0u)
        << size << " of " << bytes.size() << " bytes: " << e;
  }
  std::filesystem::remove(truncated);

  // A kernel library without the model's symbols.
  std::string kernels_only = temp_path("kernels_only.so");
  codegen::emit_shared_library(tiny_model().kernels, target::host(), kernels_only);
  EXPECT_EQ(load_error(kernels_only), "'" + kernels_only +
                                          "' is not a tessel model library: it has no symbol "
                                          "'tessel_model_plan_size'");
  std::filesystem::remove(kernels_only);
}

TEST(Model, RecordsItsTargetAndItsFeatures) {
  runtime::Module library = runtime::Module::load(tiny_library());
  const auto* target = static_cast<const char*>(library.find_symbol(runtime::kTargetSymbol));
  const auto* features = static_cast<const char*>(library.find_symbol(runtime::kFeaturesSymbol));
  ASSERT_NE(target, nullptr);
  ASSERT_NE(features, nullptr);
  EXPECT_EQ(std::string(target), target::host().to_string());
  EXPECT_EQ(target::parse_target(target).features, target::host().features);
  std::string expected;
  for (const std::string& f : target::host().features) expected += (expected.empty() ? "" : ",") + f;
  EXPECT_EQ(std::string(features), expected);
}

TEST(Model, ALibraryNeedingFeaturesTheProcessorLacksIsRefusedNamingThem) {
  // Granite Rapids' AMX-FP16, or AVX-512 on a host without it: this host lacks one of them.
  target::Target wide = target::parse_target("llvm -mcpu=graniterapids");
  std::string missing;
  if (target::runs_on_host(wide, &missing)) GTEST_SKIP() << "the host has every feature of " << wide.cpu;
  TinyModel m = tiny_model();
  std::string path = temp_path("wide.so");
  driver::BuildOptions options;
  options.target = wide;
  driver::export_model(m.kernels, m.plan, m.weights, path, options);
  std::string error = load_error(path);
  EXPECT_NE(error.find("was compiled for '" + wide.to_string() + "'"), std::string::npos) << error;
  EXPECT_NE(error.find("needs " + missing + ", which this processor"), std::string::npos) << error;
  // Through the C API too, as an error code and a message.
  tessel_model* model = nullptr;
  EXPECT_NE(tessel_model_load(path.c_str(), &model), TESSEL_OK);
  EXPECT_EQ(model, nullptr);
  EXPECT_NE(std::string(tessel_last_error()).find(missing), std::string::npos)
      << tessel_last_error();
  std::filesystem::remove(path);
}

TEST(Model, ExportErrors) {
  TinyModel m = tiny_model();
  std::string path = temp_path("never_written.so");
  auto export_error = [&](const TinyModel& t) {
    return error_of([&] { driver::export_model(t.kernels, t.plan, t.weights, path); });
  };
  TinyModel bad = m;
  bad.weights.pop_back();
  EXPECT_EQ(export_error(bad),
            "export_model: model 'tiny': 191 bytes of weights given, the plan expects 192");
  bad = m;
  bad.kernels.pop_back();
  EXPECT_EQ(export_error(bad),
            "export_model: model 'tiny': step 1 ('Relu+Add') calls kernel 'tiny_relu_add', "
            "which is not among the 1 kernels given");
  bad = m;
  bad.plan.tensors[3].offset = 4096;
  EXPECT_NE(export_error(bad).find("export_model: invalid plan for model 'tiny': model plan: "
                                   "byte "),
            std::string::npos)
      << export_error(bad);
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(Model, LargeWeightsGoThroughIncbin) {
  // 64 MiB of weights with w at the very end: the blob is copied by the assembler, not
  // compiled, so this takes well under a second or two.
  TinyModel m = tiny_model();
  const int64_t total = int64_t{64} << 20, offset = total - kSize * 4;
  std::vector<uint8_t> weights(static_cast<size_t>(total), 0x5A);
  std::memcpy(weights.data() + offset, m.weights.data() + kWeightOffset, kSize * 4);
  m.weights = std::move(weights);
  m.plan.weights_bytes = total;
  m.plan.tensors[1].offset = offset;
  std::string path = temp_path("large.so");
  auto start = std::chrono::steady_clock::now();
  driver::export_model(m.kernels, m.plan, m.weights, path);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("export_seconds", std::to_string(seconds));
  EXPECT_GT(std::filesystem::file_size(path), static_cast<uintmax_t>(total));
  Model model = Model::load(path);
  expect_matches_reference(model, tiny_input(8));
  std::filesystem::remove(path);
}

TEST(Model, ExportedLibraryHoldsAlignedWeights) {
  runtime::Module module = runtime::Module::load(tiny_library());
  const void* weights = module.find_symbol(runtime::kWeightsSymbol);
  ASSERT_NE(weights, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(weights) % 64, 0u);
  TinyModel m = tiny_model();
  EXPECT_EQ(std::memcmp(weights, m.weights.data(), m.weights.size()), 0);
  uint64_t size = 0;
  std::memcpy(&size, module.find_symbol(runtime::kWeightsSizeSymbol), sizeof size);
  EXPECT_EQ(size, m.weights.size());
}

}  // namespace
}  // namespace tessel::deploy_test

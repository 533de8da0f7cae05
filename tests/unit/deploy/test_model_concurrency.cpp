// One compiled model library (the tiny model, tiny_model.h) under load: run from 8 threads
// at once, each through its own context, with runtime::Model, the C API and the C++
// wrapper, every result bitwise identical to the single-threaded one; a library made by
// another tessel version (another plan version); 10,000 load/unload cycles with the
// resident memory watched.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "runtime/error.h"
#include "runtime/model.h"
#include "runtime/tessel_model.hpp"
#include "runtime/tessel_runtime.h"
#include "unit/deploy/tiny_model.h"
#include "unit/runtime/load_checks.h"

namespace tessel::deploy_test {
namespace {

using runtime::Model;
using runtime::NDArray;
using runtime::RunContext;
using runtime::test::bytes_of;
using runtime::test::concurrent_mismatches;
using runtime::test::OutputBytes;

constexpr int kThreads = 8, kRuns = 500, kDistinctInputs = 6;

std::vector<std::vector<float>> distinct_inputs() {
  std::vector<std::vector<float>> inputs;
  for (int s = 0; s < kDistinctInputs; ++s) inputs.push_back(tiny_input(s));
  return inputs;
}

OutputBytes reference_bytes(const std::vector<float>& x) {
  std::vector<std::vector<float>> ref = tiny_reference(x);
  return {bytes_of(ref[0]), bytes_of(ref[1])};
}

/// Runs `model` through `context` on x (as an NDArray, the checked path).
OutputBytes run_bytes(const Model& model, RunContext& context, const std::vector<float>& x) {
  NDArray input({kRows, kCols}, runtime::DType::Float(32));
  std::memcpy(input.data(), x.data(), x.size() * sizeof(float));
  OutputBytes out;
  for (const NDArray& a : model.run(context, {&input})) {
    auto* p = static_cast<const uint8_t*>(a.data());
    out.emplace_back(p, p + a.nbytes());
  }
  return out;
}

TEST(ModelConcurrency, ContextsPerThreadMatchOneThread) {
  Model model = Model::load(tiny_library());
  std::vector<std::vector<float>> inputs = distinct_inputs();
  std::vector<OutputBytes> expected;
  for (const std::vector<float>& x : inputs) {
    expected.push_back(run_bytes(model, model.context(), x));
    ASSERT_EQ(expected.back(), reference_bytes(x));
  }
  std::vector<RunContext> contexts;
  for (int t = 0; t < kThreads; ++t) contexts.emplace_back(model);
  std::string problem;
  int mismatches = concurrent_mismatches(
      kThreads, kRuns, expected,
      [&](int t, size_t input) {
        return run_bytes(model, contexts[static_cast<size_t>(t)], inputs[input]);
      },
      problem);
  EXPECT_EQ(mismatches, 0) << problem;
  tessel_set_num_threads(0);
}

TEST(ModelConcurrency, CApiContextsPerThreadMatchOneThread) {
  tessel_model* model = nullptr;
  ASSERT_EQ(tessel_model_load(tiny_library().c_str(), &model), TESSEL_OK) << tessel_last_error();
  std::vector<std::vector<float>> inputs = distinct_inputs();
  // Single-threaded, through the model's own functions.
  std::vector<OutputBytes> expected;
  for (const std::vector<float>& x : inputs) {
    ASSERT_EQ(tessel_model_set_input(model, 0, x.data(), kSize * 4), TESSEL_OK);
    ASSERT_EQ(tessel_model_run(model), TESSEL_OK) << tessel_last_error();
    OutputBytes out(2, std::vector<uint8_t>(kSize * 4));
    for (int i = 0; i < 2; ++i)
      ASSERT_EQ(tessel_model_get_output(model, i, out[i].data(), kSize * 4), TESSEL_OK);
    ASSERT_EQ(out, reference_bytes(x));
    expected.push_back(out);
  }
  std::vector<tessel_context*> contexts(kThreads, nullptr);
  for (tessel_context*& c : contexts)
    ASSERT_EQ(tessel_context_create(model, &c), TESSEL_OK) << tessel_last_error();
  std::string problem;
  int mismatches = concurrent_mismatches(
      kThreads, kRuns, expected,
      [&](int t, size_t input) {
        tessel_context* c = contexts[static_cast<size_t>(t)];
        OutputBytes out(2, std::vector<uint8_t>(kSize * 4));
        bool ok = tessel_context_set_input(c, 0, inputs[input].data(), kSize * 4) == TESSEL_OK &&
                  tessel_context_run(c) == TESSEL_OK &&
                  tessel_context_get_output(c, 0, out[0].data(), kSize * 4) == TESSEL_OK &&
                  tessel_context_get_output(c, 1, out[1].data(), kSize * 4) == TESSEL_OK;
        if (!ok) throw std::runtime_error(tessel_last_error());
        return out;
      },
      problem);
  EXPECT_EQ(mismatches, 0) << problem;
  for (tessel_context* c : contexts) tessel_context_free(c);
  tessel_model_free(model);
  tessel_set_num_threads(0);
}

TEST(ModelConcurrency, CApiContextErrors) {
  tessel_context* context = reinterpret_cast<tessel_context*>(1);
  EXPECT_EQ(tessel_context_create(nullptr, &context), TESSEL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(context, nullptr);
  EXPECT_STREQ(tessel_last_error(), "tessel_context_create: the model is NULL");
  EXPECT_EQ(tessel_context_run(nullptr), TESSEL_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tessel_last_error(), "tessel_context_run: the context is NULL");
  tessel_context_free(nullptr);

  tessel_model* model = nullptr;
  ASSERT_EQ(tessel_model_load(tiny_library().c_str(), &model), TESSEL_OK);
  EXPECT_EQ(tessel_context_create(model, nullptr), TESSEL_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(tessel_context_create(model, &context), TESSEL_OK);
  std::vector<float> out(kSize);
  EXPECT_EQ(tessel_context_get_output(context, 0, out.data(), kSize * 4),
            TESSEL_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tessel_last_error(),
               "tessel_context_get_output: the model has not run yet (call tessel_context_run)");
  EXPECT_EQ(tessel_context_set_input(context, 0, out.data(), 4), TESSEL_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tessel_last_error(), "tessel_context_set_input: input 0 ('x') has 128 bytes, got 4");
  // A run of the model's own inputs leaves the context's outputs unset, and the other way.
  ASSERT_EQ(tessel_model_run(model), TESSEL_OK);
  EXPECT_EQ(tessel_context_get_output(context, 0, out.data(), kSize * 4),
            TESSEL_ERR_INVALID_ARGUMENT);
  tessel_context_free(context);
  tessel_model_free(model);
  tessel_set_num_threads(0);
}

TEST(ModelConcurrency, CppWrapperContextsPerThreadMatchOneThread) {
  tessel::CompiledModel model(tiny_library());
  std::vector<std::vector<float>> inputs = distinct_inputs();
  std::vector<OutputBytes> expected;
  for (const std::vector<float>& x : inputs) {
    model.set_input(0, x);
    model.run();
    expected.push_back({bytes_of(model.output<float>(0)), bytes_of(model.output<float>(1))});
    ASSERT_EQ(expected.back(), reference_bytes(x));
  }
  std::vector<tessel::ModelContext> contexts;
  for (int t = 0; t < kThreads; ++t) contexts.emplace_back(model);
  std::string problem;
  int mismatches = concurrent_mismatches(
      kThreads, kRuns, expected,
      [&](int t, size_t input) {
        tessel::ModelContext& c = contexts[static_cast<size_t>(t)];
        c.set_input(0, inputs[input]);
        c.run();
        return OutputBytes{bytes_of(c.output<float>(0)), bytes_of(c.output<float>(1))};
      },
      problem);
  EXPECT_EQ(mismatches, 0) << problem;
  tessel::ModelContext moved = std::move(contexts[0]);
  EXPECT_EQ(moved.handle() != nullptr, true);
  EXPECT_EQ(contexts[0].handle(), nullptr);
  tessel_set_num_threads(0);
}

TEST(ModelConcurrency, ALibraryOfAnotherTesselVersionIsRefused) {
  // A copy of the library whose plan says it was written by another version: the u32 after
  // the plan's magic "TSLPLAN\0".
  std::ifstream in(tiny_library(), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t magic = bytes.find(std::string("TSLPLAN\0", 8));
  ASSERT_NE(magic, std::string::npos);
  ASSERT_EQ(bytes.find(std::string("TSLPLAN\0", 8), magic + 1), std::string::npos);
  bytes[magic + 8] = 7;
  std::string other = temp_path("other_version.so");
  std::ofstream(other, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  std::string expected = "'" + other +
                         "': model plan: byte 8: unsupported plan version 7 (this runtime reads "
                         "version 6): the library was made by another tessel version; compile "
                         "the model again";
  try {
    Model::load(other);
    ADD_FAILURE() << "expected an error";
  } catch (const runtime::Error& e) {
    EXPECT_EQ(e.what(), expected);
  }
  tessel_model* model = reinterpret_cast<tessel_model*>(1);
  EXPECT_EQ(tessel_model_load(other.c_str(), &model), TESSEL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tessel_last_error(), "tessel_model_load: " + expected);
  std::filesystem::remove(other);
}

TEST(ModelConcurrency, TenThousandLoadsAndUnloadsKeepMemoryFlat) {
  std::vector<float> x = tiny_input(2);
  std::vector<float> z(kSize);
  runtime::test::LoadCycles c = runtime::test::run_load_cycles(200, 10000, [&] {
    Model model = Model::load(tiny_library());
    const void* inputs[] = {x.data()};
    void* outputs[] = {z.data(), nullptr};
    model.run_raw(inputs, outputs);
  });
  EXPECT_EQ(z, tiny_reference(x)[0]);
  RecordProperty("rss_start_kib", std::to_string(c.rss_start / 1024));
  RecordProperty("rss_end_kib", std::to_string(c.rss_end / 1024));
  std::printf("10000 load/run/unload cycles: %.2f s, resident %lld KiB -> %lld KiB\n", c.seconds,
              static_cast<long long>(c.rss_start / 1024), static_cast<long long>(c.rss_end / 1024));
  // 1 MiB over 10,000 cycles: a leak of 100 bytes a cycle fails (not measurable where a
  // sanitizer's allocator holds freed memory).
  if (!runtime::test::kSanitizedAllocator) {
    EXPECT_LT(c.rss_end - c.rss_start, int64_t{1} << 20);
  }
  tessel_set_num_threads(0);
}

}  // namespace
}  // namespace tessel::deploy_test

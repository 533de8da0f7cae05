// runtime::Model under load, on the hand-made model library (hand_model.h), with the runtime
// alone (this program also runs under ASan/UBSan and LeakSanitizer): many threads running
// one model through their own contexts, runs inside a parallel body, a context of another
// model, a plan of another version, truncated libraries, and 10,000 load/unload cycles with
// the resident memory watched.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <optional>

#include "runtime/error.h"
#include "runtime/model.h"
#include "runtime/thread_pool.h"
#include "unit/runtime/hand_model.h"
#include "unit/runtime/load_checks.h"

namespace tessel::runtime::test {
namespace {

/// The hand-made library, or a skip when no C compiler built it.
#define HAND_LIBRARY_OR_SKIP(path)          \
  const std::string& path = hand_library(); \
  if (path.empty()) GTEST_SKIP() << "no C compiler to build the library"

std::string load_error(const std::string& path) {
  try {
    Model::load(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

/// Runs the model through `context` on x; returns its outputs as bytes.
OutputBytes run_bytes(const Model& model, RunContext& context, const std::vector<float>& x) {
  const void* inputs[] = {x.data()};
  model.run_raw(context, inputs);
  OutputBytes out;
  for (size_t i = 0; i < model.num_outputs(); ++i) {
    auto* p = static_cast<const uint8_t*>(context.output_data(i));
    out.emplace_back(p, p + model.output_nbytes(i));
  }
  return out;
}

TEST(ModelUnderLoad, ManyThreadsEachWithAContextMatchOneThread) {
  HAND_LIBRARY_OR_SKIP(path);
  Model model = Model::load(path);
  const int threads = 8, runs = 300, distinct_inputs = 5;
  std::vector<std::vector<float>> inputs;
  std::vector<OutputBytes> expected;
  for (int s = 0; s < distinct_inputs; ++s) {
    inputs.push_back(hand_input(s));
    expected.push_back(run_bytes(model, model.context(), inputs.back()));
    // The single-threaded result is itself right.
    std::vector<std::vector<float>> ref = hand_reference(inputs.back());
    ASSERT_EQ(expected.back(), (OutputBytes{bytes_of(ref[0]), bytes_of(ref[1])})) << "input " << s;
  }
  std::vector<RunContext> contexts;
  for (int t = 0; t < threads; ++t) contexts.emplace_back(model);
  std::string problem;
  int mismatches = concurrent_mismatches(
      threads, runs, expected,
      [&](int t, size_t input) {
        return run_bytes(model, contexts[static_cast<size_t>(t)], inputs[input]);
      },
      problem);
  EXPECT_EQ(mismatches, 0) << problem;
  // The plan's 3 threads were applied to the pool the kernels' loops ran on.
  EXPECT_EQ(num_threads(), 3);
  set_num_threads(0);
}

TEST(ModelUnderLoad, RunsInsideAParallelBodyLeaveThePoolAlone) {
  // Each chunk of an application's parallel loop runs the model through its own context;
  // the model's 3 threads differ from the pool's 2, which cannot be changed from inside a
  // parallel body: the runs must not try (their kernels' loops run serially there).
  HAND_LIBRARY_OR_SKIP(path);
  Model model = Model::load(path);
  set_num_threads(2);
  struct Env {
    const Model* model;
    std::vector<RunContext> contexts;
    std::vector<OutputBytes> got;
    std::vector<std::string> errors;
  } env{&model, {}, std::vector<OutputBytes>(4), std::vector<std::string>(4)};
  for (int t = 0; t < 4; ++t) env.contexts.emplace_back(model);
  auto body = [](int64_t begin, int64_t end, void* p) -> int32_t {
    auto* e = static_cast<Env*>(p);
    for (int64_t i = begin; i < end; ++i) {
      try {
        e->got[i] = run_bytes(*e->model, e->contexts[i], hand_input(static_cast<int>(i)));
      } catch (const std::exception& ex) {
        e->errors[i] = ex.what();
      }
    }
    return TESSEL_OK;
  };
  ASSERT_EQ(tessel_parallel_for(4, body, &env), TESSEL_OK);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(env.errors[i], "") << "chunk " << i;
    std::vector<std::vector<float>> ref = hand_reference(hand_input(static_cast<int>(i)));
    EXPECT_EQ(env.got[i], (OutputBytes{bytes_of(ref[0]), bytes_of(ref[1])})) << "chunk " << i;
  }
  EXPECT_EQ(num_threads(), 2);
  set_num_threads(0);
}

TEST(ModelUnderLoad, AContextServesOnlyItsModelAndOutlivesIt) {
  HAND_LIBRARY_OR_SKIP(path);
  Model a = Model::load(path);
  std::optional<Model> b = Model::load(path);
  RunContext of_b(*b);
  std::vector<float> x = hand_input(1);
  const void* inputs[] = {x.data()};
  try {
    a.run_raw(of_b, inputs);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "model 'hand': the run context was made for another model ('hand')");
  }
  // A moved model keeps serving its contexts; a context keeps its outputs after the model is
  // gone.
  Model moved = std::move(*b);
  std::vector<std::vector<float>> ref = hand_reference(x);
  EXPECT_EQ(run_bytes(moved, of_b, x), (OutputBytes{bytes_of(ref[0]), bytes_of(ref[1])}));
  b.reset();
  { Model gone = std::move(moved); }
  EXPECT_EQ(std::memcmp(of_b.output_data(1), ref[1].data(), ref[1].size() * 4), 0);
  EXPECT_THROW(of_b.output_data(2), Error);
}

TEST(ModelUnderLoad, APlanOfAnotherVersionIsRefused) {
  HAND_LIBRARY_OR_SKIP(path);
  // The version is the u32 after the 8 magic bytes.
  std::vector<uint8_t> plan = serialize_plan(hand_plan());
  ASSERT_EQ(std::string(reinterpret_cast<const char*>(plan.data())), "TSLPLAN");
  plan[8] = 1;
  std::string other = hand_temp_path("other_version.so");
  ASSERT_EQ(build_hand_library(plan, other), "");
  EXPECT_EQ(load_error(other),
            "'" + other +
                "': model plan: byte 8: unsupported plan version 1 (this "
                "runtime reads version 6): the library was made by another tessel "
                "version; compile the model again");
  std::filesystem::remove(other);
}

TEST(ModelUnderLoad, EveryTruncatedLibraryIsRefused) {
  // dlopen itself accepts a library cut anywhere after its loaded segments (and crashes on
  // one cut inside them): every cut must fail, naming the file and the truncation.
  HAND_LIBRARY_OR_SKIP(path);
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string cut = hand_temp_path("cut.so");
  std::vector<size_t> sizes = {bytes.size() - 1, bytes.size() - 64, 64};
  for (size_t k = 1; k < 32; ++k) sizes.push_back(bytes.size() * k / 32);
  for (size_t size : sizes) {
    std::ofstream(cut, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(size));
    std::string e = load_error(cut);
    EXPECT_EQ(e.rfind("cannot load module '" + cut + "': truncated or corrupt ELF file: ", 0), 0u)
        << size << " of " << bytes.size() << " bytes: " << e;
  }
  std::filesystem::remove(cut);
}

TEST(ModelUnderLoad, TenThousandLoadsAndUnloadsKeepMemoryFlat) {
  HAND_LIBRARY_OR_SKIP(path);
  std::vector<float> x = hand_input(3);
  std::vector<float> z(kHandSize);
  LoadCycles c = run_load_cycles(200, 10000, [&] {
    Model model = Model::load(path);
    const void* inputs[] = {x.data()};
    void* outputs[] = {z.data(), nullptr};
    model.run_raw(inputs, outputs);
  });
  EXPECT_EQ(z, hand_reference(x)[0]);
  RecordProperty("rss_start_kib", std::to_string(c.rss_start / 1024));
  RecordProperty("rss_end_kib", std::to_string(c.rss_end / 1024));
  RecordProperty("seconds", std::to_string(c.seconds));
  std::printf("10000 load/run/unload cycles: %.2f s, resident %lld KiB -> %lld KiB\n", c.seconds,
              static_cast<long long>(c.rss_start / 1024), static_cast<long long>(c.rss_end / 1024));
  // 1 MiB over 10,000 cycles: a leak of 100 bytes a cycle fails. (The sanitizers' allocators
  // hold freed memory; under ASan, LeakSanitizer checks the cycles at exit instead.)
  if (!kSanitizedAllocator) {
    EXPECT_LT(c.rss_end - c.rss_start, int64_t{1} << 20);
  }
  set_num_threads(0);
}

}  // namespace
}  // namespace tessel::runtime::test

// A compiled model library made without the compiler, for the runtime's own tests (which
// link no LLVM and run under the sanitizers): the plan comes from serialize_plan, the
// kernels are C, and the system C compiler (`cc`) builds the .so at test time.
//
//   x: float32[kHandSize] (input)   w: float32[kHandSize] (weight)
//   y = x * w                 (kernel hand_mul,      parallel over the elements)
//   z = max(y, 0) + x         (kernel hand_relu_add, parallel over the elements)
//   outputs: z, y; the plan asks for 3 threads.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/model_plan.h"
#include "unit/runtime/mul_relu_add.h"

namespace tessel::runtime::test {

inline constexpr int64_t kHandSize = 1024;

inline float hand_weight(int64_t k) {
  return mul_relu_add_weight(k);
}
inline std::vector<float> hand_input(int seed) {
  return mul_relu_add_input(kHandSize, seed);
}
inline std::vector<std::vector<float>> hand_reference(const std::vector<float>& x) {
  return mul_relu_add_reference(x);
}

inline ModelPlan hand_plan() {
  DType f32 = DType::Float(32);
  const int64_t bytes = kHandSize * 4;
  ModelPlan p;
  p.name = "hand";
  p.tensors = {
      {"x", f32, {kHandSize}, Storage::Input, 0},
      {"w", f32, {kHandSize}, Storage::Weight, 0},
      {"y", f32, {kHandSize}, Storage::Arena, bytes},
      {"z", f32, {kHandSize}, Storage::Arena, 0},
  };
  p.inputs = {0};
  p.outputs = {3, 2};
  p.steps = {{StepKind::Kernel, "hand_mul", "Mul", {0, 1, 2}},
             {StepKind::Kernel, "hand_relu_add", "Relu+Add", {2, 0, 3}}};
  p.arena_bytes = 2 * bytes;
  p.weights_bytes = bytes;
  p.intermediate_bytes = 2 * bytes;
  p.num_threads = 3;
  return p;
}

/// A path under the test's temporary folder (the process id keeps concurrent runs apart).
inline std::string hand_temp_path(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) /
          ("tessel_" + std::to_string(getpid()) + "_" + name))
      .string();
}

/// `bytes` as a C array definition named `name`, 64-byte aligned.
inline std::string c_array(const std::string& name, const std::vector<uint8_t>& bytes) {
  std::string s = "__attribute__((aligned(64))) const unsigned char " + name + "[] = {";
  for (size_t i = 0; i < bytes.size(); ++i)
    s += std::string(i ? "," : "") + (i % 32 ? "" : "\n") + std::to_string(bytes[i]);
  return s + "};\nconst uint64_t " + name + "_size = " + std::to_string(bytes.size()) + ";\n";
}

/// Builds the hand-made model library with these plan bytes at `path`; returns "" or the
/// compiler's complaint.
inline std::string build_hand_library(const std::vector<uint8_t>& plan_bytes,
                                      const std::string& path) {
  std::vector<uint8_t> weights(kHandSize * 4);
  for (int64_t k = 0; k < kHandSize; ++k) {
    float w = hand_weight(k);
    std::memcpy(weights.data() + 4 * k, &w, 4);
  }
  std::string source = path + ".c";
  std::ofstream(source) << R"(#include <stdint.h>
typedef int32_t (*body_fn)(int64_t, int64_t, void*);
int32_t tessel_parallel_for(int64_t extent, body_fn body, void* env);
typedef struct { const float* a; const float* b; float* out; } Args;
static int32_t mul(int64_t begin, int64_t end, void* env) {
  const Args* p = (const Args*)env;
  for (int64_t i = begin; i < end; ++i) p->out[i] = p->a[i] * p->b[i];
  return 0;
}
static int32_t relu_add(int64_t begin, int64_t end, void* env) {
  const Args* p = (const Args*)env;
  for (int64_t i = begin; i < end; ++i) p->out[i] = (p->a[i] > 0 ? p->a[i] : 0.0f) + p->b[i];
  return 0;
}
int32_t hand_mul(void** args) {
  Args a = {(const float*)args[0], (const float*)args[1], (float*)args[2]};
  return tessel_parallel_for()" +
                               std::to_string(kHandSize) +
                               R"(, mul, &a);
}
int32_t hand_relu_add(void** args) {
  Args a = {(const float*)args[0], (const float*)args[1], (float*)args[2]};
  return tessel_parallel_for()" +
                               std::to_string(kHandSize) +
                               R"(, relu_add, &a);
}
)" + c_array("tessel_model_plan", plan_bytes) +
                               c_array("tessel_model_weights", weights);
  std::string log = path + ".log";
  std::string command = "cc -shared -fPIC -O2 -ffp-contract=off -o '" + path + "' '" + source +
                        "' > '" + log + "' 2>&1";
  int status = std::system(command.c_str());
  std::ifstream in(log);
  std::string complaint((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(source);
  std::filesystem::remove(log);
  if (status == 0) return "";
  return "'" + command + "' failed: " + (complaint.empty() ? "no output" : complaint);
}

/// The hand-made library with the plan of hand_plan(), built once per test process (removed
/// at exit); "" when no C compiler is at hand (the calling test skips).
inline const std::string& hand_library() {
  struct Library {
    std::string path;
    ~Library() {
      std::error_code ec;
      if (!path.empty()) std::filesystem::remove(path, ec);
    }
  };
  static const Library library = [] {
    std::string path = hand_temp_path("hand.so");
    std::string problem = build_hand_library(serialize_plan(hand_plan()), path);
    if (!problem.empty()) {
      std::fprintf(stderr, "no hand-made model library: %s\n", problem.c_str());
      return Library{""};
    }
    return Library{path};
  }();
  return library.path;
}

}  // namespace tessel::runtime::test

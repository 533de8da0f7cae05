// A tiny compiled model built by hand (no graph compiler), for the deploy and CLI tests:
//
//   x: float32[4, 8] (input)   w: float32[4, 8] (weight, 64 bytes into the weights blob)
//   y = x * w                  (kernel tiny_mul,      arena offset 128)
//   z = relu(y) + x            (kernel tiny_relu_add, arena offset 0)
//   outputs: z, y
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "driver/build.h"
#include "driver/export_model.h"
#include "runtime/model_plan.h"
#include "schedule/schedule.h"
#include "te/compute.h"
#include "unit/runtime/mul_relu_add.h"

namespace tessel::deploy_test {

inline constexpr int64_t kRows = 4, kCols = 8, kSize = kRows * kCols;
/// Where w starts in the weights blob (the bytes before it are filler).
inline constexpr int64_t kWeightOffset = 64;

struct TinyModel {
  std::vector<ir::PrimFunc> kernels;
  runtime::ModelPlan plan;
  std::vector<uint8_t> weights;
};

inline float weight_value(int64_t k) {
  return runtime::test::mul_relu_add_weight(k);
}
inline std::vector<float> tiny_input(int seed) {
  return runtime::test::mul_relu_add_input(kSize, seed);
}
inline std::vector<std::vector<float>> tiny_reference(const std::vector<float>& x) {
  return runtime::test::mul_relu_add_reference(x);
}

/// out[i, j] = body(a[i, j], b[i, j]), vectorised 8 wide, lowered to a PrimFunc.
template <class Body>
ir::PrimFunc elementwise_kernel(const std::string& name, const std::string& a_name,
                                const std::string& b_name, const std::string& out_name, Body body) {
  ir::DataType f32 = ir::DataType::Float(32);
  te::Tensor a = te::placeholder({kRows, kCols}, f32, a_name);
  te::Tensor b = te::placeholder({kRows, kCols}, f32, b_name);
  te::Tensor out =
      te::compute({kRows, kCols}, [&](te::Var i, te::Var j) { return body(a(i, j), b(i, j)); },
                  out_name, {"i", "j"});
  schedule::Schedule s({out});
  auto [outer, inner] = s.split(out, "j", 8);
  (void)outer;
  s.vectorize(out, inner);
  return driver::lower_and_optimize(s, {a, b, out}, name);
}

inline TinyModel tiny_model() {
  TinyModel m;
  m.kernels.push_back(
      elementwise_kernel("tiny_mul", "x", "w", "y", [](ir::Expr a, ir::Expr b) { return a * b; }));
  m.kernels.push_back(elementwise_kernel(
      "tiny_relu_add", "y", "x", "z",
      [](ir::Expr a, ir::Expr b) { return ir::max(a, ir::make_float(0.0)) + b; }));

  runtime::DType f32 = runtime::DType::Float(32);
  runtime::ModelPlan& p = m.plan;
  p.name = "tiny";
  const int64_t bytes = kSize * 4;
  p.tensors = {
      {"x", f32, {kRows, kCols}, runtime::Storage::Input, 0},
      {"w", f32, {kRows, kCols}, runtime::Storage::Weight, kWeightOffset},
      {"y", f32, {kRows, kCols}, runtime::Storage::Arena, 128},
      {"z", f32, {kRows, kCols}, runtime::Storage::Arena, 0},
  };
  p.inputs = {0};
  p.outputs = {3, 2};
  p.steps = {{runtime::StepKind::Kernel, "tiny_mul", "Mul", {0, 1, 2}},
             {runtime::StepKind::Kernel, "tiny_relu_add", "Relu+Add", {2, 0, 3}}};
  p.arena_bytes = 128 + bytes;
  p.weights_bytes = kWeightOffset + bytes;
  p.intermediate_bytes = 2 * bytes;
  p.num_threads = 2;

  m.weights.assign(static_cast<size_t>(p.weights_bytes), 0xAB);
  for (int64_t k = 0; k < kSize; ++k) {
    float v = weight_value(k);
    std::memcpy(m.weights.data() + kWeightOffset + 4 * k, &v, 4);
  }
  return m;
}

/// A path under the test's temporary folder (the process id keeps concurrent runs apart).
inline std::string temp_path(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) /
          ("tessel_" + std::to_string(getpid()) + "_" + name))
      .string();
}

/// A file removed when this object goes (at exit, for a static one).
struct RemovedAtExit {
  std::string path;
  ~RemovedAtExit() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
};

/// `m` exported as a model library at temp_path(`name`).
inline RemovedAtExit export_tiny(const TinyModel& m, const std::string& name) {
  std::string path = temp_path(name);
  driver::export_model(m.kernels, m.plan, m.weights, path);
  return RemovedAtExit{path};
}

/// The tiny model exported once per test process (removed at exit).
inline const std::string& tiny_library() {
  static const RemovedAtExit library = export_tiny(tiny_model(), "tiny.so");
  return library.path;
}

}  // namespace tessel::deploy_test

// Ahead-of-time compilation end to end: build a small loop-IR function, compile it into a
// shared library, load the library with the runtime alone and run the kernel.
//
//   y[i] = relu(a * x[i] + b[i]) for i in [0, 1024), 16 lanes at a time, rows in parallel
//
// Usage: tessel-example-aot [output.so]   (default: ./tessel_example_kernels.so)
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>

#include "codegen/llvm/aot.h"
#include "ir/stmt.h"
#include "runtime/module.h"
#include "runtime/ndarray.h"

namespace {

using namespace tessel::ir;

/// The kernel as loop IR: parallel over 16 rows of 64, each row as 4 vectors of 16.
PrimFunc build_kernel(int64_t rows, int64_t cols) {
  const int lanes = 16;
  DataType f32 = DataType::Float(32);
  Buffer X = Buffer::make("x", f32, {Expr(rows * cols)});
  Buffer B = Buffer::make("b", f32, {Expr(rows * cols)});
  Buffer Y = Buffer::make("y", f32, {Expr(rows * cols)});
  Var r("r"), v("v");
  Expr idx = make_Ramp(r * cols + v * lanes, Expr(int64_t{1}), lanes);
  Expr a = make_Broadcast(make_float(0.5), lanes);
  Expr value =
      max(a * make_Load(X, {idx}) + make_Load(B, {idx}), make_Broadcast(make_float(0.0), lanes));
  Stmt row = make_For(v, Expr(int64_t{0}), Expr(cols / lanes), ForKind::Serial,
                      make_Store(Y, value, {idx}));
  return PrimFunc{
      "axpb_relu", {X, B, Y}, make_For(r, Expr(int64_t{0}), Expr(rows), ForKind::Parallel, row)};
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t rows = 16, cols = 64, n = rows * cols;
  std::string path = argc > 1 ? argv[1] : "./tessel_example_kernels.so";
  try {
    // Compile: loop IR -> LLVM -> object -> shared library.
    tessel::codegen::emit_shared_library({build_kernel(rows, cols)}, tessel::target::host(), path);
    // Run: only the runtime is needed from here on.
    tessel::runtime::Module module = tessel::runtime::Module::load(path);
    tessel_kernel kernel = module.get_function("axpb_relu");
    using tessel::runtime::DType;
    using tessel::runtime::NDArray;
    NDArray x({n}, DType::Float(32)), b({n}, DType::Float(32)), y({n}, DType::Float(32));
    for (int64_t i = 0; i < n; ++i) {
      x.data_as<float>()[i] = static_cast<float>(i % 17) - 8;
      b.data_as<float>()[i] = 1.0f;
    }
    void* args[] = {x.data(), b.data(), y.data()};
    if (int32_t status = kernel(args); status != 0) {
      std::fprintf(stderr, "kernel failed with status %d: %s\n", status, tessel_last_error());
      return 1;
    }
    int mismatches = 0;
    for (int64_t i = 0; i < n; ++i) {
      float expected = std::max(0.5f * x.data_as<float>()[i] + 1.0f, 0.0f);
      if (y.data_as<float>()[i] != expected) ++mismatches;
    }
    const float* out = y.data_as<float>();
    std::printf("%s: axpb_relu over %lld floats, %d mismatches; y[6..9] = %g %g %g %g\n",
                path.c_str(), static_cast<long long>(n), mismatches, out[6], out[7], out[8],
                out[9]);
    return mismatches == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}

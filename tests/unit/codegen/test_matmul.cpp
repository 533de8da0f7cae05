// A matrix multiplication written directly in loop IR (parallel rows, a 16-wide vectorised
// inner loop, a local accumulator tile), compared with a naive C++ triple loop.
#include <gtest/gtest.h>

#include <cmath>

#include "codegen_test_util.h"

namespace tessel::codegen::test {
namespace {

const DataType f32 = DataType::Float(32);

/// C[M][N] = A[M][K] * B[K][N] with N a multiple of 16.
PrimFunc matmul(int64_t M, int64_t N, int64_t K) {
  Buffer A = buffer("A", f32, M * K), B = buffer("B", f32, K * N), C = buffer("C", f32, M * N);
  Buffer acc = buffer("acc", f32, N, MemoryScope::Local);
  Var i("i"), k("k"), jo("jo"), jz("jz"), jw("jw");
  const int lanes = 16;
  Stmt zero = loop(jz, N / lanes, store(acc, ramp(jz * lanes, lanes), make_Broadcast(0.0f, lanes)));
  Expr cols = ramp(jo * lanes, lanes);
  Stmt update = loop(
      jo, N / lanes,
      store(acc, cols,
            load(acc, cols) + make_Broadcast(load(A, i * K + k), lanes) *
                                  load(B, make_Ramp(k * N + jo * lanes, Expr(int64_t{1}), lanes))));
  Stmt write = loop(jw, N / lanes,
                    store(C, ramp(i * N + jw * lanes, lanes), load(acc, ramp(jw * lanes, lanes))));
  Stmt row = make_Allocate(acc, make_Seq({zero, loop(k, K, update), write}));
  return PrimFunc{"matmul", {A, B, C}, loop(i, M, row, ForKind::Parallel)};
}

TEST(CodegenMatmul, MatchesNaiveLoop) {
  const int64_t M = 45, N = 64, K = 33;
  std::vector<float> a(M * K), b(K * N);
  for (int64_t x = 0; x < M * K; ++x) a[x] = std::sin(0.37f * x);
  for (int64_t x = 0; x < K * N; ++x) b[x] = std::cos(0.11f * x);
  auto ta = array(a, f32), tb = array(b, f32), tc = array(std::vector<float>(M * N), f32);
  ASSERT_EQ(run(matmul(M, N, K), {&ta, &tb, &tc}), 0);
  std::vector<float> c = values<float>(tc);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double expected = 0;
      for (int64_t k = 0; k < K; ++k) expected += static_cast<double>(a[i * K + k]) * b[k * N + j];
      EXPECT_NEAR(c[i * N + j], expected, 1e-5 * K) << i << "," << j;
    }
}

TEST(CodegenMatmul, ScalarLoopNestMatchesNaiveLoop) {
  // The same product as a plain scalar loop nest over C (LLVM may vectorise it).
  const int64_t M = 19, N = 23, K = 29;
  Buffer A = buffer("A", f32, M * K), B = buffer("B", f32, K * N), C = buffer("C", f32, M * N);
  Var i("i"), j("j"), k("k");
  Expr c = i * N + j;
  Stmt body =
      make_Seq({store(C, c, 0.0f),
                loop(k, K, store(C, c, load(C, c) + load(A, i * K + k) * load(B, k * N + j)))});
  PrimFunc f{"matmul_scalar", {A, B, C}, loop(i, M, loop(j, N, body))};
  std::vector<float> a(M * K), b(K * N);
  for (int64_t x = 0; x < M * K; ++x) a[x] = static_cast<float>((x * 7) % 11) - 5;
  for (int64_t x = 0; x < K * N; ++x) b[x] = static_cast<float>((x * 3) % 13) - 6;
  auto ta = array(a, f32), tb = array(b, f32), tc = array(std::vector<float>(M * N), f32);
  ASSERT_EQ(run(f, {&ta, &tb, &tc}), 0);
  for (int64_t x = 0; x < M; ++x)
    for (int64_t y = 0; y < N; ++y) {
      float expected = 0;  // small integers: exact in float
      for (int64_t z = 0; z < K; ++z) expected += a[x * K + z] * b[z * N + y];
      EXPECT_EQ(values<float>(tc)[x * N + y], expected);
    }
}

}  // namespace
}  // namespace tessel::codegen::test

// Parallel loops through the JIT: outlined closures launched on the runtime's thread pool,
// checked against serial C++ with 1 and 2 threads; captured values, nested parallel loops,
// allocations inside a parallel body and status propagation.
#include <gtest/gtest.h>

#include "codegen_test_util.h"
#include "runtime/tessel_runtime.h"
#include "runtime/thread_pool.h"

namespace tessel::codegen::test {
namespace {

const DataType f32 = DataType::Float(32);

class CodegenParallel : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { runtime::set_num_threads(GetParam()); }
  void TearDown() override { runtime::set_num_threads(0); }
};

TEST_P(CodegenParallel, CapturesBuffersLetsAndOuterLoopVariables) {
  // for b in 0..3: let scale = b + 0.5 in
  //   parallel i in 2..2+rows: for j: C[b][i][j] = A[i][j] * scale + i
  const int64_t rows = 37, cols = 9, offset = 2, total = offset + rows;
  Buffer A = buffer("A", f32, total * cols), C = buffer("C", f32, 3 * total * cols);
  Var b("b"), i("i"), j("j"), scale("scale", f32);
  Expr at = i * cols + j;
  Stmt inner = loop(j, cols, store(C, b * (total * cols) + at, load(A, at) * scale + cast(f32, i)));
  Stmt par = loop(i, Expr(offset), Expr(rows), inner, ForKind::Parallel);
  PrimFunc f{"par", {A, C}, loop(b, 3, make_LetStmt(scale, cast(f32, b) + 0.5f, par))};
  std::vector<float> a(total * cols);
  for (size_t k = 0; k < a.size(); ++k) a[k] = static_cast<float>(k % 13) - 6;
  auto ta = array(a, f32), tc = array(std::vector<float>(3 * total * cols, -1.0f), f32);
  ASSERT_EQ(run(f, {&ta, &tc}), 0);
  std::vector<float> c = values<float>(tc);
  for (int64_t bb = 0; bb < 3; ++bb)
    for (int64_t ii = 0; ii < total; ++ii)
      for (int64_t jj = 0; jj < cols; ++jj) {
        float expected = ii < offset ? -1.0f : a[ii * cols + jj] * (bb + 0.5f) + ii;
        EXPECT_EQ(c[bb * total * cols + ii * cols + jj], expected) << bb << "," << ii << "," << jj;
      }
}

TEST_P(CodegenParallel, NestedParallelLoopsRunOnce) {
  // parallel i { parallel j { C[i][j] += i * 100 + j } }: every element updated exactly once.
  const int64_t n = 23, m = 17;
  Buffer C = buffer("C", DataType::Int(32), n * m);
  Var i("i"), j("j");
  Expr at = i * m + j;
  Stmt body = store(C, at, load(C, at) + cast(DataType::Int(32), i * 100 + j));
  PrimFunc f{"nested", {C}, loop(i, n, loop(j, m, body, ForKind::Parallel), ForKind::Parallel)};
  auto tc = array(std::vector<int32_t>(n * m, 1), DataType::Int(32));
  ASSERT_EQ(run(f, {&tc}), 0);
  std::vector<int32_t> c = values<int32_t>(tc);
  for (int64_t x = 0; x < n; ++x)
    for (int64_t y = 0; y < m; ++y) EXPECT_EQ(c[x * m + y], 1 + x * 100 + y);
}

TEST_P(CodegenParallel, LocalAndGlobalAllocationsInsideTheBody) {
  const int64_t n = 16, k = 8;
  Buffer A = buffer("A", f32, n * k), C = buffer("C", f32, n);
  Buffer L = buffer("L", f32, k, MemoryScope::Local), G = buffer("G", f32, k);
  Var i("i"), j("j"), r("r");
  Stmt fill = loop(
      j, k, make_Seq({store(L, j, load(A, i * k + j) * 2.0f), store(G, j, load(L, j) + 1.0f)}));
  Stmt reduce = make_Seq({store(C, i, 0.0f), loop(r, k, store(C, i, load(C, i) + load(G, r)))});
  Stmt body = make_Allocate(L, make_Allocate(G, make_Seq({fill, reduce})));
  PrimFunc f{"par_alloc", {A, C}, loop(i, n, body, ForKind::Parallel)};
  std::vector<float> a(n * k);
  for (size_t x = 0; x < a.size(); ++x) a[x] = static_cast<float>(x % 5);
  auto ta = array(a, f32), tc = array(std::vector<float>(n), f32);
  ASSERT_EQ(run(f, {&ta, &tc}), 0);
  for (int64_t x = 0; x < n; ++x) {
    float expected = 0;
    for (int64_t y = 0; y < k; ++y) expected += a[x * k + y] * 2 + 1;
    EXPECT_EQ(values<float>(tc)[x], expected);
  }
}

TEST_P(CodegenParallel, StatusOfAFailingChunkIsReturned) {
  // Iterations >= 5 allocate an impossible workspace: the launch fails with
  // TESSEL_ERR_OUT_OF_MEMORY, and the kernel returns it.
  const int64_t n = 8;
  Buffer C = buffer("C", f32, n);
  Buffer Huge = buffer("huge", f32, int64_t{1} << 60);
  Var i("i");
  Stmt fail = make_Allocate(Huge, store(Huge, Expr(int64_t{0}), 1.0f));
  Stmt body = make_Seq({store(C, i, 1.0f), make_IfThenElse(i >= 5, fail)});
  PrimFunc f{"par_fail", {C}, loop(i, n, body, ForKind::Parallel)};
  auto tc = array(std::vector<float>(n), f32);
  EXPECT_EQ(run(f, {&tc}), TESSEL_ERR_OUT_OF_MEMORY);
}

TEST_P(CodegenParallel, EmptyAndSingleIterationLoops) {
  Buffer C = buffer("C", f32, 2);
  Var i("i"), j("j");
  PrimFunc f{"par_small",
             {C},
             make_Seq({loop(i, 0, store(C, i, 9.0f), ForKind::Parallel),
                       loop(j, Expr(int64_t{1}), Expr(int64_t{1}), store(C, j, 4.0f),
                            ForKind::Parallel)})};
  auto tc = array(std::vector<float>{0.0f, 0.0f}, f32);
  ASSERT_EQ(run(f, {&tc}), 0);
  EXPECT_EQ(values<float>(tc)[0], 0.0f);
  EXPECT_EQ(values<float>(tc)[1], 4.0f);
}

INSTANTIATE_TEST_SUITE_P(Threads, CodegenParallel, ::testing::Values(1, 2, 3));

}  // namespace
}  // namespace tessel::codegen::test

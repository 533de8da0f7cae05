// Allocations through the JIT: Local and small Global buffers on the stack, larger Global
// buffers in the runtime workspace, allocation failure as a status, and the errors for
// buffers the CPU cannot place.
#include <gtest/gtest.h>

#include "codegen/llvm/codegen_llvm.h"
#include "codegen_test_util.h"
#include "runtime/tessel_runtime.h"
#include "support/error.h"

namespace tessel::codegen::test {
namespace {

const DataType f32 = DataType::Float(32);

/// C[i] = 2 * A[n - 1 - i], staged through a temporary buffer in `scope`.
PrimFunc reverse_through(MemoryScope scope, int64_t n) {
  Buffer A = buffer("A", f32, n), C = buffer("C", f32, n);
  Buffer T = buffer("T", f32, n, scope);
  Var i("i"), j("j");
  Stmt fill = loop(i, n, store(T, i, load(A, i) * 2.0f));
  Stmt read = loop(j, n, store(C, j, load(T, Expr(n - 1) - j)));
  return PrimFunc{"reverse", {A, C}, make_Allocate(T, make_Seq({fill, read}))};
}

class CodegenAllocate : public ::testing::TestWithParam<MemoryScope> {};

TEST_P(CodegenAllocate, StagesThroughTemporary) {
  const int64_t n = 50;
  std::vector<float> a(n);
  for (int k = 0; k < n; ++k) a[k] = k * 1.5f - 7;
  auto ta = array(a, f32), tc = array(std::vector<float>(n), f32);
  ASSERT_EQ(run(reverse_through(GetParam(), n), {&ta, &tc}), 0);
  for (int k = 0; k < n; ++k) EXPECT_EQ(values<float>(tc)[k], 2 * a[n - 1 - k]);
}

INSTANTIATE_TEST_SUITE_P(Scopes, CodegenAllocate,
                         ::testing::Values(MemoryScope::Local, MemoryScope::Global));

TEST(CodegenAllocate, SmallGlobalBuffersLiveOnTheStack) {
  // 50 floats fit the stack limit: no workspace call; 8192 floats go to the workspace.
  std::string small = emit_llvm_ir({reverse_through(MemoryScope::Global, 50)}, target::host(),
                                   /*optimize=*/false);
  EXPECT_EQ(small.find("tessel_workspace_alloc"), std::string::npos) << small;
  EXPECT_NE(small.find("alloca"), std::string::npos) << small;
  std::string large = emit_llvm_ir({reverse_through(MemoryScope::Global, 8192)}, target::host(),
                                   /*optimize=*/false);
  EXPECT_NE(large.find("tessel_workspace_alloc"), std::string::npos);
  EXPECT_NE(large.find("tessel_workspace_free"), std::string::npos);
}

TEST(CodegenPrefetch, BecomesAnL2PrefetchAndChangesNoResult) {
  // C[i] = A[i] + 1, each iteration prefetching the line 16 floats ahead (clamped inside A).
  const int64_t n = 40;
  Buffer A = buffer("A", f32, n), C = buffer("C", f32, n);
  Var i("i");
  Stmt body = make_Seq({make_Prefetch(A, min(i + Expr(int64_t{16}), Expr(n - 1))),
                        store(C, i, load(A, i) + 1.0f)});
  PrimFunc f{"shifted", {A, C}, loop(i, n, body)};
  std::string ir = emit_llvm_ir({f}, target::host(), /*optimize=*/false);
  // Read (0), locality 2 (prefetcht1 on x86-64: into L2), data (1).
  EXPECT_NE(ir.find("call void @llvm.prefetch.p0(ptr"), std::string::npos) << ir;
  EXPECT_NE(ir.find("i32 0, i32 2, i32 1)"), std::string::npos) << ir;
  std::vector<float> a(n);
  for (int k = 0; k < n; ++k) a[k] = k * 0.5f - 3;
  auto ta = array(a, f32), tc = array(std::vector<float>(n), f32);
  ASSERT_EQ(run(f, {&ta, &tc}), 0);
  for (int k = 0; k < n; ++k) EXPECT_EQ(values<float>(tc)[k], a[k] + 1.0f);
}

TEST(CodegenAllocate, LocalTileInsideLoopsAndVectorAccess) {
  // A 16-float local tile per row, filled with vector stores and reduced with scalar loads.
  const int64_t rows = 6, cols = 16;
  Buffer A = buffer("A", f32, rows * cols), S = buffer("S", f32, rows);
  Buffer T = buffer("tile", f32, cols, MemoryScope::Local);
  Var r("r"), k("k");
  Stmt fill =
      store(T, ramp(Expr(int64_t{0}), 16), load(A, ramp(r * cols, 16)) * make_Broadcast(3.0f, 16));
  Stmt init = store(S, r, 0.0f);
  Stmt sum = loop(k, cols, store(S, r, load(S, r) + load(T, k)));
  PrimFunc f{"row_sums", {A, S}, loop(r, rows, make_Allocate(T, make_Seq({fill, init, sum})))};
  std::vector<float> a(rows * cols);
  for (size_t x = 0; x < a.size(); ++x) a[x] = static_cast<float>(x % 7) - 2;
  auto ta = array(a, f32), ts = array(std::vector<float>(rows), f32);
  ASSERT_EQ(run(f, {&ta, &ts}), 0);
  for (int64_t x = 0; x < rows; ++x) {
    float expected = 0;
    for (int64_t y = 0; y < cols; ++y) expected += 3 * a[x * cols + y];
    EXPECT_FLOAT_EQ(values<float>(ts)[x], expected);
  }
}

TEST(CodegenAllocate, GlobalWithComputedShape) {
  // The workspace size comes from an enclosing loop variable: (i + 1) * 4 elements.
  Buffer C = buffer("C", f32, 5);
  Var i("i"), j("j");
  Buffer W = Buffer::make("W", f32, {(i + 1) * 4}, MemoryScope::Global);
  Stmt body =
      make_Allocate(W, make_Seq({loop(j, Expr(int64_t{0}), (i + 1) * 4, store(W, j, cast(f32, j))),
                                 store(C, i, load(W, (i + 1) * 4 - 1))}));
  PrimFunc f{"dynamic_workspace", {C}, loop(i, 5, body)};
  auto tc = array(std::vector<float>(5), f32);
  ASSERT_EQ(run(f, {&tc}), 0);
  for (int k = 0; k < 5; ++k) EXPECT_EQ(values<float>(tc)[k], (k + 1) * 4 - 1);
}

TEST(CodegenAllocate, FailedWorkspaceAllocationReturnsStatus) {
  // The outer workspace succeeds, the inner one (2^60 floats) cannot: the kernel returns
  // TESSEL_ERR_OUT_OF_MEMORY (freeing the outer one) and stores nothing after it.
  Buffer C = buffer("C", f32, 2);
  Buffer Outer = buffer("outer", f32, 16);
  Buffer Huge = buffer("huge", f32, int64_t{1} << 60);
  Stmt inner = make_Allocate(
      Huge, make_Seq({store(Huge, Expr(int64_t{0}), 1.0f), store(C, Expr(int64_t{1}), 5.0f)}));
  Stmt body = make_Allocate(Outer, make_Seq({store(C, Expr(int64_t{0}), 3.0f), inner}));
  PrimFunc f{"too_big", {C}, body};
  auto tc = array(std::vector<float>{0.0f, 0.0f}, f32);
  EXPECT_EQ(run(f, {&tc}), TESSEL_ERR_OUT_OF_MEMORY);
  EXPECT_EQ(values<float>(tc)[0], 3.0f);
  EXPECT_EQ(values<float>(tc)[1], 0.0f);
}

TEST(CodegenAllocate, ErrorsForUnplaceableBuffers) {
  Buffer C = buffer("C", f32, 4);
  Var i("i"), n("n");
  Buffer Shared = buffer("smem", f32, 4, MemoryScope::Shared);
  PrimFunc shared{"shared", {C}, make_Allocate(Shared, store(Shared, Expr(int64_t{0}), 1.0f))};
  EXPECT_THROW(
      {
        try {
          JitModule({shared});
        } catch (const CompileError& e) {
          EXPECT_NE(std::string(e.what()).find("'smem' is in shared memory"), std::string::npos)
              << e.what();
          throw;
        }
      },
      CompileError);
  Buffer Dyn = Buffer::make("dyn", f32, {i + 1}, MemoryScope::Local);
  PrimFunc local{"dyn_local", {C}, loop(i, 4, make_Allocate(Dyn, store(Dyn, i, 1.0f)))};
  EXPECT_THROW(JitModule({local}), CompileError);
  // A constant size whose byte count overflows int64.
  Buffer Vast = buffer("vast", f32, int64_t{1} << 62);
  PrimFunc vast{"vast", {C}, make_Allocate(Vast, store(Vast, Expr(int64_t{0}), 1.0f))};
  EXPECT_THROW(JitModule({vast}), CompileError);
  // A buffer used outside its Allocate.
  Buffer T = buffer("T", f32, 4, MemoryScope::Local);
  PrimFunc stray{"stray", {C}, store(T, Expr(int64_t{0}), 1.0f)};
  EXPECT_THROW(JitModule({stray}), CompileError);
}

}  // namespace
}  // namespace tessel::codegen::test

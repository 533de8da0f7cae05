// Tests of vectorize_loops: golden IR for what it rewrites, and interpreter equivalence
// (bit-identical) for vectorized bodies and for every serial fallback.
#include <gtest/gtest.h>

#include "pass_test_util.h"
#include "tir/vectorize.h"
#include "tir/verify.h"

namespace tessel::tir {
namespace {

using namespace ir;
using testing::expect_same_results;
using testing::prints;

const DataType f32 = DataType::Float(32);

Buffer buf(const std::string& name, std::vector<Expr> shape, DataType t = f32) {
  return Buffer::make(name, t, std::move(shape));
}

Stmt loop(const Var& v, int64_t extent, Stmt body, ForKind kind = ForKind::Serial) {
  return make_For(v, make_int(0), make_int(extent), kind, std::move(body));
}

Stmt vloop(const Var& v, int64_t extent, Stmt body) {
  return loop(v, extent, std::move(body), ForKind::Vectorized);
}

/// Vectorizes, verifies and checks equivalence with the input in the interpreter.
PrimFunc vectorize_checked(const PrimFunc& f) {
  PrimFunc out = vectorize_loops(f);
  verify_func(out);
  expect_same_results(f, out);
  return out;
}

TEST(Vectorize, GoldenMultiDimensionalAccess) {
  Buffer a = buf("A", {make_int(3), make_int(4)}), b = buf("B", {make_int(4)});
  Buffer c = buf("C", {make_int(3), make_int(4)});
  Var i("i"), j("j");
  Stmt body = make_Store(c, make_Load(a, {i, j}) + make_Load(b, {j}) * make_float(2.0f), {i, j});
  PrimFunc out = vectorize_checked(PrimFunc{"f", {a, b, c}, loop(i, 3, vloop(j, 4, body))});
  EXPECT_EQ(to_string(out), R"(func f(A: float32[3, 4], B: float32[4], C: float32[3, 4]) {
  for (i, 0, 3) {
    C[i, ramp(0, 1, 4)] = A[i, ramp(0, 1, 4)] + B[ramp(0, 1, 4)] * broadcast(2.0f, 4)
  }
}
)");
}

TEST(Vectorize, GoldenRampArithmeticOnFlatIndices) {
  // C[i * 8 + j * 2 - 1 + 1] = A[i * 8 + (7 - j) * 1] with j vectorized over [0, 4).
  Buffer a = buf("A", {make_int(16)}), c = buf("C", {make_int(16)});
  Var i("i"), j("j");
  Expr store_index = i * make_int(8) + j * make_int(2) - make_int(1) + make_int(1);
  Expr load_index = i * make_int(8) + (make_int(7) - j) * make_int(1);
  Stmt body = make_Store(c, make_Load(a, {load_index}), {store_index});
  PrimFunc out = vectorize_checked(PrimFunc{"f", {a, c}, loop(i, 2, vloop(j, 4, body))});
  EXPECT_EQ(to_string(out), R"(func f(A: float32[16], C: float32[16]) {
  for (i, 0, 2) {
    C[ramp(i * 8 - 1 + 1, 2, 4)] = A[ramp(i * 8 + 7, -1, 4)]
  }
}
)");
}

TEST(Vectorize, GoldenLetsBecomeVectorLets) {
  Buffer a = buf("A", {make_int(8)}), c = buf("C", {make_int(8)});
  Var j("j"), t("t"), u("u", f32), s("s", f32);
  // let t = j * 2 in let s = A[0] (invariant) in C[j] = (let u = A[t] in u * u) + s
  Expr value = make_Let(u, make_Load(a, {t}), u * u) + s;
  Stmt body = make_LetStmt(t, j * make_int(2),
                           make_LetStmt(s, make_Load(a, {make_int(0)}), make_Store(c, value, {j})));
  PrimFunc out = vectorize_checked(PrimFunc{"f", {a, c}, vloop(j, 4, body)});
  EXPECT_EQ(to_string(out), R"(func f(A: float32[8], C: float32[8]) {
  let t = ramp(0, 2, 4)
  let s = A[0]
  C[ramp(0, 1, 4)] = (let u = A[t] in u * u) + broadcast(s, 4)
}
)");
}

TEST(Vectorize, InnerReductionLoopStaysALoop) {
  // C[j] = sum_k A[k, j], j vectorized outside the k loop.
  Buffer a = buf("A", {make_int(5), make_int(8)}), c = buf("C", {make_int(8)});
  Var j("j"), k("k");
  Stmt body = make_Seq({make_Store(c, make_float(0.0f), {j}),
                        loop(k, 5, make_Store(c, make_Load(c, {j}) + make_Load(a, {k, j}), {j}))});
  PrimFunc out = vectorize_checked(PrimFunc{"f", {a, c}, vloop(j, 8, body)});
  EXPECT_EQ(to_string(out), R"(func f(A: float32[5, 8], C: float32[8]) {
  C[ramp(0, 1, 8)] = broadcast(0.0f, 8)
  for (k, 0, 5) {
    C[ramp(0, 1, 8)] = C[ramp(0, 1, 8)] + A[k, ramp(0, 1, 8)]
  }
}
)");
}

TEST(Vectorize, UnrolledInnerLoopKeepsItsKind) {
  Buffer a = buf("A", {make_int(4), make_int(3)}), c = buf("C", {make_int(4), make_int(3)});
  Var j("j"), k("k");
  Stmt body =
      loop(k, 3, make_Store(c, make_Load(a, {j, k}) * make_float(0.5f), {j, k}), ForKind::Unrolled);
  PrimFunc out = vectorize_checked(PrimFunc{"f", {a, c}, vloop(j, 4, body)});
  EXPECT_TRUE(prints(out, "unrolled (k, 0, 3)")) << out;
  EXPECT_TRUE(prints(out, "C[ramp(0, 1, 4), k] = A[ramp(0, 1, 4), k] * broadcast(0.5f, 4)")) << out;
}

TEST(Vectorize, FlatIndexMovedByAnInnerLoopWithinTheStride) {
  // C[j * 3 + k] for k in [0, 3): lanes stay apart (the base moves by at most 2 < 3).
  Buffer a = buf("A", {make_int(12)}), c = buf("C", {make_int(12)});
  Var j("j"), k("k");
  Expr idx = j * make_int(3) + k;
  Stmt body = loop(k, 3, make_Store(c, make_Load(c, {idx}) * make_Load(a, {idx}), {idx}));
  PrimFunc out = vectorize_checked(PrimFunc{"f", {a, c}, vloop(j, 4, body)});
  EXPECT_TRUE(prints(out, "C[ramp(k, 3, 4)] = C[ramp(k, 3, 4)] * A[ramp(k, 3, 4)]")) << out;
}

TEST(Vectorize, SelectForAnIfElseStoringOneElement) {
  Buffer c = buf("C", {make_int(8)}, DataType::Int(32));
  Var j("j");
  Expr j32 = cast(DataType::Int(32), j);
  Stmt body = make_IfThenElse(j % make_int(3) == make_int(0), make_Store(c, j32 * j32, {j}),
                              make_Store(c, make_int(-1, DataType::Int(32)), {j}));
  PrimFunc out = vectorize_checked(PrimFunc{"f", {c}, vloop(j, 8, body)});
  EXPECT_EQ(to_string(out),
            "func f(C: int32[8]) {\n"
            "  C[ramp(0, 1, 8)] = select(ramp(0, 1, 8) % broadcast(3, 8) == broadcast(0, 8), "
            "int32x8(ramp(0, 1, 8)) * int32x8(ramp(0, 1, 8)), broadcast(int32(-1), 8))\n"
            "}\n");
}

TEST(Vectorize, CastsCallsSelectsAndNarrowIntegers) {
  Buffer a = buf("A", {make_int(8)}), x = buf("X", {make_int(8)}, DataType::Int(8));
  Buffer c = buf("C", {make_int(8)});
  Var j("j");
  Expr xv = make_Load(x, {j}) * make_int(13, DataType::Int(8));  // wraps in int8
  Expr v = select(make_Load(a, {j}) > make_float(0.0f), exp(make_Load(a, {j})),
                  cast(f32, xv) + cast(f32, j));
  PrimFunc out = vectorize_checked(PrimFunc{"f", {a, x, c}, vloop(j, 8, make_Store(c, v, {j}))});
  EXPECT_TRUE(prints(out, "C[ramp(0, 1, 8)] = select(")) << out;
  EXPECT_TRUE(prints(out, "float32x8(ramp(0, 1, 8))")) << out;
}

TEST(Vectorize, ExtentOneSubstitutesTheMinimum) {
  Buffer c = buf("C", {make_int(4)});
  Var j("j");
  Stmt body = make_For(j, make_int(2), make_int(1), ForKind::Vectorized,
                       make_Store(c, make_float(1.0f), {j}));
  PrimFunc out = vectorize_checked(PrimFunc{"f", {c}, body});
  EXPECT_EQ(to_string(out), "func f(C: float32[4]) {\n  C[2] = 1.0f\n}\n");
}

TEST(Vectorize, StoreOnlyRepeatedLanesVectorize) {
  // C[j / 2] = A[j]: lanes repeat, but C is only written, so the last lane wins as in the loop.
  Buffer a = buf("A", {make_int(8)}), c = buf("C", {make_int(4)});
  Var j("j");
  PrimFunc out = vectorize_checked(
      PrimFunc{"f", {a, c}, vloop(j, 8, make_Store(c, make_Load(a, {j}), {j / make_int(2)}))});
  EXPECT_TRUE(prints(out, "C[ramp(0, 1, 8) / broadcast(2, 8)] = A[ramp(0, 1, 8)]")) << out;
}

TEST(Vectorize, NestedVectorizedLoopsVectorizeTheInnerOne) {
  Buffer a = buf("A", {make_int(4), make_int(4)}), c = buf("C", {make_int(4), make_int(4)});
  Var i("i"), j("j");
  Stmt body = vloop(i, 4, vloop(j, 4, make_Store(c, make_Load(a, {j, i}), {i, j})));
  PrimFunc out = vectorize_checked(PrimFunc{"f", {a, c}, body});
  EXPECT_EQ(to_string(out), R"(func f(A: float32[4, 4], C: float32[4, 4]) {
  for (i, 0, 4) {
    C[i, ramp(0, 1, 4)] = A[ramp(0, 1, 4), i]
  }
}
)");
}

/// A vectorized loop that must stay serial: the output has a serial loop and no vector.
void expect_serial_fallback(const PrimFunc& f) {
  PrimFunc out = vectorize_checked(f);
  EXPECT_FALSE(prints(out, "vectorized")) << out;
  EXPECT_FALSE(prints(out, "ramp")) << out;
  EXPECT_TRUE(prints(out, "for (j, ")) << out;
}

TEST(VectorizeFallback, NonConstantExtent) {
  Buffer c = buf("C", {make_int(8)});
  Var j("j"), n("n");
  Stmt body = make_LetStmt(
      n, make_int(6),
      make_For(j, make_int(0), n, ForKind::Vectorized, make_Store(c, make_float(1.0f), {j})));
  expect_serial_fallback(PrimFunc{"f", {c}, body});
}

TEST(VectorizeFallback, InnerLoopBoundsDependOnTheVariable) {
  Buffer a = buf("A", {make_int(6)}), c = buf("C", {make_int(6)});
  Var j("j"), k("k");
  Stmt inner = make_For(k, make_int(0), j + make_int(1), ForKind::Serial,
                        make_Store(c, make_Load(c, {j}) + make_Load(a, {k}), {j}));
  expect_serial_fallback(PrimFunc{"f", {a, c}, vloop(j, 6, inner)});
}

TEST(VectorizeFallback, IfWithoutElseOnTheVariable) {
  Buffer a = buf("A", {make_int(8)}), c = buf("C", {make_int(8)});
  Var j("j");
  Stmt body = make_IfThenElse(j < make_int(5), make_Store(c, make_Load(a, {j}), {j}));
  expect_serial_fallback(PrimFunc{"f", {a, c}, vloop(j, 8, body)});
}

TEST(VectorizeFallback, IfElseWhoseBranchesCouldFault) {
  // The then-branch loads A[j - 4], which is out of bounds on the lanes the else guards.
  Buffer a = buf("A", {make_int(4)}), c = buf("C", {make_int(8)});
  Var j("j");
  Stmt body = make_IfThenElse(j >= make_int(4), make_Store(c, make_Load(a, {j - make_int(4)}), {j}),
                              make_Store(c, make_float(0.0f), {j}));
  expect_serial_fallback(PrimFunc{"f", {a, c}, vloop(j, 8, body)});
}

TEST(VectorizeFallback, NestedAllocate) {
  Buffer a = buf("A", {make_int(8)}), c = buf("C", {make_int(8)});
  Buffer t = Buffer::make("t", f32, {make_int(1)}, MemoryScope::Local);
  Var j("j");
  Stmt body = make_Allocate(t, make_Seq({make_Store(t, make_Load(a, {j}), {make_int(0)}),
                                         make_Store(c, make_Load(t, {make_int(0)}), {j})}));
  expect_serial_fallback(PrimFunc{"f", {a, c}, vloop(j, 8, body)});
}

TEST(VectorizeFallback, ReductionIntoOneLocation) {
  Buffer a = buf("A", {make_int(8)}), s = buf("S", {make_int(1)});
  Var j("j");
  Stmt body = make_Store(s, make_Load(s, {make_int(0)}) + make_Load(a, {j}), {make_int(0)});
  expect_serial_fallback(PrimFunc{"f", {a, s}, vloop(j, 8, body)});
}

TEST(VectorizeFallback, LoopCarriedDependence) {
  // A[j + 1] = A[j] * 2: lane j reads what lane j - 1 wrote.
  Buffer a = buf("A", {make_int(9)});
  Var j("j");
  Stmt body = make_Store(a, make_Load(a, {j}) * make_float(2.0f), {j + make_int(1)});
  expect_serial_fallback(PrimFunc{"f", {a}, vloop(j, 8, body)});
}

TEST(VectorizeFallback, ReadModifyWriteWithRepeatedLanes) {
  Buffer a = buf("A", {make_int(8)}), c = buf("C", {make_int(4)});
  Var j("j");
  Expr half = j / make_int(2);
  Stmt body = make_Store(c, make_Load(c, {half}) + make_Load(a, {j}), {half});
  expect_serial_fallback(PrimFunc{"f", {a, c}, vloop(j, 8, body)});
}

TEST(VectorizeFallback, StoreIndexUsesAnInnerLoopVariable) {
  // C[j + k] += A[k]: lanes overlap across iterations of k.
  Buffer a = buf("A", {make_int(3)}), c = buf("C", {make_int(6)});
  Var j("j"), k("k");
  Stmt inner = loop(k, 3, make_Store(c, make_Load(c, {j + k}) + make_Load(a, {k}), {j + k}));
  expect_serial_fallback(PrimFunc{"f", {a, c}, vloop(j, 4, inner)});
}

TEST(VectorizeFallback, FlatIndexMovedByAnInnerLoopBeyondTheStride) {
  // C[j * 2 + k] for k in [0, 3): lane 0 at k = 2 and lane 1 at k = 0 meet at element 2.
  Buffer a = buf("A", {make_int(12)}), c = buf("C", {make_int(12)});
  Var j("j"), k("k");
  Expr idx = j * make_int(2) + k;
  Stmt body =
      loop(k, 3, make_Store(c, make_Load(c, {idx}) * make_float(0.5f) + make_Load(a, {k}), {idx}));
  expect_serial_fallback(PrimFunc{"f", {a, c}, vloop(j, 4, body)});
}

TEST(VectorizeFallback, StoreOnlyIndexMovedByAnInnerLoop) {
  // C[j + k] = A[j * 3 + k]: a store alone, but lanes meet across iterations of k, and the
  // loop's last writer of each element differs from the vector code's.
  Buffer a = buf("A", {make_int(12)}), c = buf("C", {make_int(6)});
  Var j("j"), k("k");
  Stmt body = loop(k, 3, make_Store(c, make_Load(a, {j * make_int(3) + k}), {j + k}));
  expect_serial_fallback(PrimFunc{"f", {a, c}, vloop(j, 4, body)});
}

TEST(VectorizeFallback, InnerLoopsStillProcessedUnderAFallback) {
  // The outer vectorized loop cannot vectorize (reduction into S[0]) but its inner one can.
  Buffer a = buf("A", {make_int(4), make_int(4)}), s = buf("S", {make_int(1)});
  Buffer c = buf("C", {make_int(4), make_int(4)});
  Var i("i"), j("j");
  Stmt body = make_Seq(
      {make_Store(s, make_Load(s, {make_int(0)}) + make_Load(a, {i, make_int(0)}), {make_int(0)}),
       vloop(j, 4, make_Store(c, make_Load(a, {i, j}), {i, j}))});
  PrimFunc out = vectorize_checked(PrimFunc{"f", {a, s, c}, vloop(i, 4, body)});
  EXPECT_TRUE(prints(out, "for (i, 0, 4)")) << out;
  EXPECT_TRUE(prints(out, "C[i, ramp(0, 1, 4)] = A[i, ramp(0, 1, 4)]")) << out;
}

}  // namespace
}  // namespace tessel::tir

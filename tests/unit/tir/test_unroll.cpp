// Tests of unroll_loops: golden IR for the copies and interpreter equivalence.
#include <gtest/gtest.h>

#include "pass_test_util.h"
#include "tir/unroll.h"
#include "tir/verify.h"

namespace tessel::tir {
namespace {

using namespace ir;
using testing::expect_same_results;
using testing::prints;

const DataType f32 = DataType::Float(32);

PrimFunc unroll_checked(const PrimFunc& f, const UnrollOptions& options = {}) {
  PrimFunc out = unroll_loops(f, options);
  verify_func(out);
  expect_same_results(f, out);
  return out;
}

TEST(Unroll, GoldenCopiesInOrder) {
  Buffer a = Buffer::make("A", f32, {make_int(2), make_int(3)});
  Var i("i"), k("k");
  Stmt body = make_For(k, make_int(0), make_int(3), ForKind::Unrolled,
                       make_Store(a, make_Load(a, {i, k}) + make_float(1.0f), {i, k}));
  PrimFunc f{"f", {a}, make_For(i, make_int(0), make_int(2), ForKind::Serial, body)};
  EXPECT_EQ(to_string(unroll_checked(f)), R"(func f(A: float32[2, 3]) {
  for (i, 0, 2) {
    A[i, 0] = A[i, 0] + 1.0f
    A[i, 1] = A[i, 1] + 1.0f
    A[i, 2] = A[i, 2] + 1.0f
  }
}
)");
}

TEST(Unroll, SymbolicMinimumIsOffset) {
  Buffer a = Buffer::make("A", f32, {make_int(8)});
  Var i("i"), k("k");
  Stmt body = make_For(k, i * make_int(4), make_int(2), ForKind::Unrolled,
                       make_Store(a, make_float(3.0f), {k}));
  PrimFunc f{"f", {a}, make_For(i, make_int(0), make_int(2), ForKind::Serial, body)};
  EXPECT_EQ(to_string(unroll_checked(f)), R"(func f(A: float32[8]) {
  for (i, 0, 2) {
    A[i * 4] = 3.0f
    A[i * 4 + 1] = 3.0f
  }
}
)");
}

TEST(Unroll, NestedLoopsLetsAndOrderDependentUpdates) {
  // acc[0] = acc[0] * 3 + A[k, m] in k-major order is order-sensitive; a let and an inner
  // serial loop are copied with each outer copy.
  Buffer a = Buffer::make("A", DataType::Int(32), {make_int(3), make_int(4)});
  Buffer acc = Buffer::make("acc", DataType::Int(32), {make_int(1)});
  Var k("k"), m("m"), t("t", DataType::Int(32));
  Expr update = make_Load(acc, {make_int(0)}) * make_int(3, DataType::Int(32)) + t;
  Stmt inner =
      make_For(m, make_int(0), make_int(4), ForKind::Unrolled,
               make_LetStmt(t, make_Load(a, {k, m}), make_Store(acc, update, {make_int(0)})));
  Stmt outer = make_For(k, make_int(0), make_int(3), ForKind::Unrolled,
                        make_For(Var("s"), make_int(0), make_int(2), ForKind::Serial, inner));
  PrimFunc out = unroll_checked(PrimFunc{"f", {a, acc}, outer});
  EXPECT_FALSE(prints(out, "unrolled")) << out;
  EXPECT_TRUE(prints(out, "let t = A[2, 3]")) << out;
}

TEST(Unroll, FallsBackToSerial) {
  Buffer a = Buffer::make("A", f32, {make_int(8)});
  Var k("k"), n("n");
  Stmt store = make_Store(a, make_Load(a, {k}) * make_float(2.0f), {k});
  // A non-constant extent.
  Stmt symbolic =
      make_LetStmt(n, make_int(5), make_For(k, make_int(0), n, ForKind::Unrolled, store));
  PrimFunc out = unroll_checked(PrimFunc{"f", {a}, symbolic});
  EXPECT_TRUE(prints(out, "for (k, 0, n)")) << out;
  // Over the size limit: 8 copies of a 6-node body exceed 40 nodes.
  Stmt big = make_For(k, make_int(0), make_int(8), ForKind::Unrolled, store);
  out = unroll_checked(PrimFunc{"f", {a}, big}, UnrollOptions{40});
  EXPECT_TRUE(prints(out, "for (k, 0, 8)")) << out;
  out = unroll_checked(PrimFunc{"f", {a}, big}, UnrollOptions{48});
  EXPECT_FALSE(prints(out, "for (k")) << out;
}

TEST(Unroll, EmptyLoopAndOtherKindsUntouched) {
  Buffer a = Buffer::make("A", f32, {make_int(4)});
  Var k("k"), p("p");
  Stmt empty = make_For(k, make_int(0), make_int(0), ForKind::Unrolled,
                        make_Store(a, make_float(1.0f), {k}));
  Stmt parallel = make_For(p, make_int(0), make_int(4), ForKind::Parallel,
                           make_Store(a, make_float(2.0f), {p}));
  PrimFunc f{"f", {a}, make_Seq({empty, parallel})};
  PrimFunc out = unroll_checked(f);
  EXPECT_TRUE(out.body.as<SeqNode>()->seq[1].same_as(parallel));
  EXPECT_FALSE(prints(out, "(k,")) << out;
}

}  // namespace
}  // namespace tessel::tir

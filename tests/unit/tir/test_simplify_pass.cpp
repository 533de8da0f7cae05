// Tests of tir::simplify: golden IR for each statement rule, and interpreter equivalence.
#include <gtest/gtest.h>

#include "pass_test_util.h"
#include "tir/simplify.h"
#include "tir/verify.h"

namespace tessel::tir {
namespace {

using namespace ir;
using testing::expect_same_results;

const DataType f32 = DataType::Float(32);

Stmt loop(const Var& v, Expr min, Expr extent, Stmt body, ForKind kind = ForKind::Serial) {
  return make_For(v, std::move(min), std::move(extent), kind, std::move(body));
}

PrimFunc simplify_checked(const PrimFunc& f) {
  PrimFunc out = simplify(f);
  verify_func(out);
  expect_same_results(f, out);
  return out;
}

TEST(SimplifyPass, ExpressionsUseLoopRanges) {
  Buffer a = Buffer::make("A", f32, {make_int(64)}), b = Buffer::make("B", f32, {make_int(64)});
  Var i("i"), j("j");
  Expr idx = (i * 8 + j) / 8 * 8 + (i * 8 + j) % 8;  // == i*8 + j
  Stmt body = make_IfThenElse(i * 8 + j < 64, make_Store(b, make_Load(a, {idx + 1 - 1}), {idx}));
  PrimFunc out = simplify_checked(PrimFunc{"f", {a, b}, loop(i, 0, 8, loop(j, 0, 8, body))});
  EXPECT_EQ(to_string(out), R"(func f(A: float32[64], B: float32[64]) {
  for (i, 0, 8) {
    for (j, 0, 8) {
      B[i * 8 + j] = A[i * 8 + j]
    }
  }
}
)");
}

TEST(SimplifyPass, ProvablyFalseGuardTakesTheElseBranch) {
  Buffer b = Buffer::make("B", f32, {make_int(8)});
  Var i("i");
  Stmt body = make_IfThenElse(i >= 8, make_Store(b, make_float(1.0f), {i}),
                              make_Store(b, make_float(2.0f), {i}));
  PrimFunc out = simplify_checked(PrimFunc{"f", {b}, loop(i, 0, 8, body)});
  EXPECT_EQ(to_string(out), R"(func f(B: float32[8]) {
  for (i, 0, 8) {
    B[i] = 2.0f
  }
}
)");
}

TEST(SimplifyPass, GuardWithoutElseThatNeverHoldsRemovesTheLoop) {
  Buffer b = Buffer::make("B", f32, {make_int(8)});
  Var i("i");
  Stmt dead = loop(i, 0, 8, make_IfThenElse(i > 100, make_Store(b, make_float(1.0f), {i})));
  Stmt live = loop(i, 0, 8, make_Store(b, make_float(3.0f), {i}));
  PrimFunc out = simplify_checked(PrimFunc{"f", {b}, make_Seq({dead, live})});
  EXPECT_EQ(to_string(out), R"(func f(B: float32[8]) {
  for (i, 0, 8) {
    B[i] = 3.0f
  }
}
)");
}

TEST(SimplifyPass, UnitAndEmptyLoops) {
  Buffer b = Buffer::make("B", f32, {make_int(8)});
  Var i("i"), j("j"), k("k");
  Stmt unit = loop(i, 3, Expr(2) - 1, make_Store(b, make_float(1.0f), {i * 2}));
  Stmt empty = loop(j, 0, Expr(4) - 4, make_Store(b, make_float(2.0f), {j}));
  Stmt negative = loop(k, 0, Expr(-3), make_Store(b, make_float(2.0f), {k}));
  PrimFunc out = simplify_checked(PrimFunc{"f", {b}, make_Seq({unit, empty, negative})});
  EXPECT_EQ(to_string(out), R"(func f(B: float32[8]) {
  B[6] = 1.0f
}
)");
}

TEST(SimplifyPass, ThreadBoundUnitLoopsStay) {
  Buffer b = Buffer::make("B", f32, {make_int(8)});
  Var t("t");
  Stmt s = make_For(t, make_int(0), make_int(1), ForKind::ThreadBinding,
                    make_Store(b, make_float(1.0f), {t + 1}), "threadIdx.x");
  EXPECT_EQ(to_string(simplify(s)), "bind[threadIdx.x] (t, 0, 1) {\n  B[1] = 1.0f\n}\n");
}

TEST(SimplifyPass, LetStatements) {
  Buffer b = Buffer::make("B", f32, {make_int(16)});
  Var i("i"), c("c"), t("t");
  // A constant let is substituted away; another keeps its statement and lends its bounds.
  Stmt inner =
      make_LetStmt(t, i * 2 + c, make_IfThenElse(t < 16, make_Store(b, make_float(1.0f), {t})));
  Stmt body = make_LetStmt(c, make_int(1), inner);
  PrimFunc out = simplify_checked(PrimFunc{"f", {b}, loop(i, 0, 7, body)});
  EXPECT_EQ(to_string(out), R"(func f(B: float32[16]) {
  for (i, 0, 7) {
    let t = i * 2 + 1
    B[t] = 1.0f
  }
}
)");
}

TEST(SimplifyPass, SymbolicExtentsAreKept) {
  Buffer b = Buffer::make("B", f32, {make_int(64)});
  Var n("n"), i("i");
  Stmt s = loop(n, 0, 8, loop(i, 0, n * 8 - n * 7, make_Store(b, make_float(1.0f), {n * 8 + i})));
  PrimFunc out = simplify_checked(PrimFunc{"f", {b}, s});
  EXPECT_EQ(to_string(out), R"(func f(B: float32[64]) {
  for (n, 0, 8) {
    for (i, 0, n) {
      B[n * 8 + i] = 1.0f
    }
  }
}
)");
}

TEST(SimplifyPass, GuardsProvenThroughSymbolicLoopRanges) {
  Buffer b = Buffer::make("B", f32, {make_int(100)});
  Var n("n"), i("i"), j("j");
  // i in [0, n) and j in [0, n - i): i < n, i + j < n and j <= n - 1 hold; i + j < n - 1 need not.
  Stmt store = make_Store(b, make_float(1.0f), {n * 10 + j});
  Stmt body = make_IfThenElse(i < n && i + j < n && j <= n - 1,
                              make_IfThenElse(i + j < n - 1, store));
  Stmt s = loop(n, 0, 10, loop(i, 0, n, loop(j, 0, n - i, body)));
  PrimFunc out = simplify_checked(PrimFunc{"f", {b}, s});
  EXPECT_EQ(to_string(out), R"(func f(B: float32[100]) {
  for (n, 0, 10) {
    for (i, 0, n) {
      for (j, 0, n - i) {
        if (i + j < n - 1) {
          B[n * 10 + j] = 1.0f
        }
      }
    }
  }
}
)");
}

TEST(SimplifyPass, UnchangedInputIsReturnedAsIs) {
  Buffer b = Buffer::make("B", f32, {make_int(8)});
  Var i("i");
  Stmt s = loop(i, 0, 8, make_Store(b, make_float(1.0f), {i}));
  EXPECT_TRUE(simplify(s).same_as(s));
}

}  // namespace
}  // namespace tessel::tir

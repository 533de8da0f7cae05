// Tests of loop_partition: golden IR (input -> expected printed IR) and interpreter
// equivalence of input and output on random data.
#include <gtest/gtest.h>

#include "ir/functor.h"
#include "ir/structural.h"
#include "pass_test_util.h"
#include "tir/loop_partition.h"
#include "tir/verify.h"

namespace tessel::tir {
namespace {

using namespace ir;
using testing::expect_same_results;

const DataType f32 = DataType::Float(32);

Stmt loop(const Var& v, Expr min, Expr extent, Stmt body) {
  return make_For(v, std::move(min), std::move(extent), ForKind::Serial, std::move(body));
}

/// Partitions, verifies and checks equivalence with the input in the interpreter.
PrimFunc partition_checked(const PrimFunc& f) {
  PrimFunc out = loop_partition(f);
  verify_func(out);
  expect_same_results(f, out);
  return out;
}

// B[i] = A[i] * 2 for i < 1000, split by 32: the guard of the non-divisible split.
PrimFunc split_guard_func() {
  Buffer a = Buffer::make("A", f32, {make_int(1000)}), b = Buffer::make("B", f32, {make_int(1000)});
  Var io("i_outer"), ii("i_inner");
  Expr i = io * 32 + ii;
  Stmt body = make_IfThenElse(i < 1000, make_Store(b, make_Load(a, {i}) * make_float(2.0f), {i}));
  return PrimFunc{"f", {a, b}, loop(io, 0, 32, loop(ii, 0, 32, body))};
}

TEST(LoopPartition, GoldenNonDivisibleSplitPartitionsTheOuterLoop) {
  PrimFunc out = partition_checked(split_guard_func());
  EXPECT_EQ(to_string(out), R"(func f(A: float32[1000], B: float32[1000]) {
  for (i_outer, 0, 31) {
    for (i_inner, 0, 32) {
      B[i_outer * 32 + i_inner] = A[i_outer * 32 + i_inner] * 2.0f
    }
  }
  for (i_inner, 0, 8) {
    B[i_inner + 992] = A[i_inner + 992] * 2.0f
  }
}
)");
}

Buffer vec(const std::string& name, int64_t n) {
  return Buffer::make(name, f32, {make_int(n)});
}

TEST(LoopPartition, GoldenLowerGuardPeelsTheHead) {
  Buffer a = vec("A", 40), b = vec("B", 40);
  Var i("i");
  Stmt body = make_IfThenElse(i >= 1, make_Store(b, make_Load(a, {i - 1}), {i}));
  PrimFunc out = partition_checked(PrimFunc{"f", {a, b}, loop(i, 0, 34, body)});
  EXPECT_EQ(to_string(out), R"(func f(A: float32[40], B: float32[40]) {
  for (i, 1, 33) {
    B[i] = A[i - 1]
  }
}
)");
}

TEST(LoopPartition, GoldenPaddingGuardWithElseSplitsThreeWays) {
  Buffer a = vec("A", 32), b = vec("B", 34);
  Var i("i");
  Stmt body = make_IfThenElse(i >= 1 && i < 33, make_Store(b, make_Load(a, {i - 1}), {i}),
                              make_Store(b, make_float(0.0f), {i}));
  PrimFunc out = partition_checked(PrimFunc{"f", {a, b}, loop(i, 0, 34, body)});
  EXPECT_EQ(to_string(out), R"(func f(A: float32[32], B: float32[34]) {
  B[0] = 0.0f
  for (i, 1, 32) {
    B[i] = A[i - 1]
  }
  B[33] = 0.0f
}
)");
}

TEST(LoopPartition, GoldenGuardOnTheInnerLoopWithSymbolicSplit) {
  // A triangle: for each n, i runs over [0, 10) but only i < n does work.
  Buffer b = vec("B", 100);
  Var n("n"), i("i");
  Stmt body = make_IfThenElse(i < n, make_Store(b, make_float(1.0f), {n * 10 + i}));
  PrimFunc out = partition_checked(PrimFunc{"f", {b}, loop(n, 0, 10, loop(i, 0, 10, body))});
  EXPECT_EQ(to_string(out), R"(func f(B: float32[100]) {
  for (n, 0, 10) {
    for (i, 0, n) {
      B[n * 10 + i] = 1.0f
    }
  }
}
)");
}

TEST(LoopPartition, GoldenSymbolicBoundOfANonDivisibleSplit) {
  // The element count n is symbolic (an outer loop variable here, to run it).
  Buffer a = vec("A", 100), b = vec("B", 10000);
  Var n("n"), io("io"), ii("ii");
  Expr i = io * 8 + ii;
  Stmt body = make_IfThenElse(i < n, make_Store(b, make_Load(a, {i}), {n * 100 + i}));
  PrimFunc f{"f", {a, b}, loop(n, 0, 100, loop(io, 0, 13, loop(ii, 0, 8, body)))};
  EXPECT_EQ(to_string(partition_checked(f)), R"(func f(A: float32[100], B: float32[10000]) {
  for (n, 0, 100) {
    for (io, 0, n / 8) {
      for (ii, 0, 8) {
        B[n * 100 + io * 8 + ii] = A[io * 8 + ii]
      }
    }
    for (io_1, n / 8, 13 - n / 8) {
      for (ii, 0, min(max(n - io_1 * 8, 0), 8)) {
        B[n * 100 + io_1 * 8 + ii] = A[io_1 * 8 + ii]
      }
    }
  }
}
)");
}

TEST(LoopPartition, GoldenElseBranchRunsInTheRemainder) {
  Buffer b = vec("B", 8);
  Var i("i");
  Stmt body = make_IfThenElse(i <= 4, make_Store(b, make_float(1.0f), {i}),
                              make_Store(b, make_float(2.0f), {i}));
  PrimFunc out = partition_checked(PrimFunc{"f", {b}, loop(i, 0, 8, body)});
  EXPECT_EQ(to_string(out), R"(func f(B: float32[8]) {
  for (i, 0, 5) {
    B[i] = 1.0f
  }
  for (i_1, 5, 3) {
    B[i_1] = 2.0f
  }
}
)");
}

TEST(LoopPartition, GoldenGuardThroughALetAndANonZeroMin) {
  Buffer b = vec("B", 64);
  Var io("io"), ii("ii"), t("t");
  Stmt guarded = make_IfThenElse(t < 50, make_Store(b, make_float(1.0f), {t}));
  Stmt body = make_LetStmt(t, io * 8 + ii, guarded);
  PrimFunc out = partition_checked(PrimFunc{"f", {b}, loop(io, 2, 6, loop(ii, 0, 8, body))});
  EXPECT_EQ(to_string(out), R"(func f(B: float32[64]) {
  for (io, 2, 4) {
    for (ii, 0, 8) {
      let t = io * 8 + ii
      B[t] = 1.0f
    }
  }
  for (io_1, 6, 2) {
    for (ii, 0, max(50 - io_1 * 8, 0)) {
      let t = io_1 * 8 + ii
      B[t] = 1.0f
    }
  }
}
)");
}

TEST(LoopPartition, GoldenOuterTailPartitionsItsInnerLoopSymbolically) {
  // In the outer tail the guard depends on j: the tail's inner loop is partitioned with a
  // symbolic bound (clamped: it is negative for i_1 > 4).
  Buffer b = vec("B", 64);
  Var i("i"), j("j");
  Stmt body = make_IfThenElse(i * 2 + j < 9, make_Store(b, make_float(1.0f), {i * 8 + j}));
  PrimFunc out = partition_checked(PrimFunc{"f", {b}, loop(i, 0, 8, loop(j, 0, 4, body))});
  EXPECT_EQ(to_string(out), R"(func f(B: float32[64]) {
  for (i, 0, 3) {
    for (j, 0, 4) {
      B[i * 8 + j] = 1.0f
    }
  }
  for (i_1, 3, 5) {
    for (j, 0, max(9 - i_1 * 2, 0)) {
      B[i_1 * 8 + j] = 1.0f
    }
  }
}
)");
}

TEST(LoopPartition, GuardsNotMonotonicInTheLoopVariableAreLeftAlone) {
  Buffer b = vec("B", 16);
  Var i("i");
  Stmt mod_guard = make_IfThenElse(i % 4 < 2, make_Store(b, make_float(1.0f), {i}));
  Stmt square_guard = make_IfThenElse(i * i < 50, make_Store(b, make_float(2.0f), {i}));
  Stmt eq_guard = make_IfThenElse(i == 3, make_Store(b, make_float(3.0f), {i}));
  for (const Stmt& body : {mod_guard, square_guard, eq_guard}) {
    Stmt s = loop(i, 0, 16, body);
    EXPECT_TRUE(structural_equal(loop_partition(s), s)) << loop_partition(s);
  }
}

TEST(LoopPartition, ThreadBoundLoopsAreNotPartitioned) {
  Buffer b = vec("B", 64);
  Var t("t");
  Stmt body = make_IfThenElse(t < 50, make_Store(b, make_float(1.0f), {t}));
  Stmt s = make_For(t, make_int(0), make_int(64), ForKind::ThreadBinding, body, "threadIdx.x");
  EXPECT_TRUE(loop_partition(s).same_as(s));
}

TEST(LoopPartition, LoopKindsArePreserved) {
  Buffer b = vec("B", 100);
  Var i("i");
  Stmt body = make_IfThenElse(i < 90, make_Store(b, make_float(1.0f), {i}));
  Stmt s = make_For(i, make_int(0), make_int(100), ForKind::Parallel, body);
  PrimFunc out = partition_checked(PrimFunc{"f", {b}, s});
  EXPECT_EQ(to_string(out), R"(func f(B: float32[100]) {
  parallel (i, 0, 90) {
    B[i] = 1.0f
  }
}
)");
}

TEST(LoopPartition, SeveralGuardsOfTheSameSplit) {
  Buffer b = vec("B", 1000), c = vec("C", 1000);
  Var io("i_outer"), ii("i_inner");
  Expr i = io * 32 + ii;
  Stmt body = make_Seq({make_IfThenElse(i < 1000, make_Store(b, make_float(1.0f), {i})),
                        make_IfThenElse(i < 1000, make_Store(c, make_float(2.0f), {i}))});
  PrimFunc out = partition_checked(PrimFunc{"f", {b, c}, loop(io, 0, 32, loop(ii, 0, 32, body))});
  EXPECT_EQ(to_string(out), R"(func f(B: float32[1000], C: float32[1000]) {
  for (i_outer, 0, 31) {
    for (i_inner, 0, 32) {
      B[i_outer * 32 + i_inner] = 1.0f
      C[i_outer * 32 + i_inner] = 2.0f
    }
  }
  for (i_inner, 0, 8) {
    B[i_inner + 992] = 1.0f
    C[i_inner + 992] = 2.0f
  }
}
)");
}

// Semantic check over many shapes of the non-divisible split: n elements, factor f.
TEST(LoopPartition, NonDivisibleSplitsKeepTheirMeaning) {
  for (int64_t n : {1, 7, 31, 32, 33, 100}) {
    for (int64_t f : {1, 4, 8, 32}) {
      Buffer a = vec("A", n), b = vec("B", n);
      Var io("io"), ii("ii");
      Expr i = io * f + ii;
      Stmt body = make_IfThenElse(i < n, make_Store(b, make_Load(a, {i}) + make_float(1.0f), {i}));
      int64_t outer = (n + f - 1) / f;
      partition_checked(PrimFunc{"f", {a, b}, loop(io, 0, outer, loop(ii, 0, f, body))});
    }
  }
}

// Random loop nests with random linear guards (placed at a random depth, with or without
// an else branch, sometimes a conjunction): partitioning must not change what is stored.
TEST(LoopPartition, RandomGuardedNestsKeepTheirMeaning) {
  std::mt19937 rng(2024);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const DataType i64 = DataType::Index();
  int partitioned = 0;
  for (int c = 0; c < 300; ++c) {
    int depth = uniform(1, 3);
    std::vector<Var> vars;
    std::vector<int> mins, extents;
    int64_t size = 1;
    for (int d = 0; d < depth; ++d) {
      vars.push_back(Var(std::string(1, "ijk"[d])));
      mins.push_back(uniform(-3, 3));
      extents.push_back(uniform(1, 9));
      size *= extents.back();
    }
    Buffer b = Buffer::make("B", i64, {make_int(size)});
    Expr index = make_int(0);
    for (int d = 0; d < depth; ++d) index = index * extents[d] + (vars[d] - mins[d]);
    // The guard sits directly inside loop guard_depth (or outside every loop when -1), uses
    // the variables in scope there and wraps the loops below; its else branch writes the
    // first element of its row.
    int guard_depth = uniform(-1, depth - 1);
    auto linear_guard = [&]() {
      Expr lhs = make_int(uniform(-5, 5));
      for (int d = 0; d <= guard_depth; ++d) lhs = lhs + vars[d] * uniform(-3, 3);
      Expr rhs = make_int(uniform(-10, 10));
      switch (uniform(0, 3)) {
        case 0:
          return lhs < rhs;
        case 1:
          return lhs <= rhs;
        case 2:
          return lhs > rhs;
        default:
          return lhs >= rhs;
      }
    };
    Expr guard = uniform(0, 2) == 0 ? linear_guard() && linear_guard() : linear_guard();
    Stmt body = make_Store(b, make_Load(b, {index}) + index * 3 + 1, {index});
    for (int d = depth - 1; d >= -1; --d) {
      if (d == guard_depth) {
        std::vector<std::pair<Var, Expr>> first;
        for (int e = d + 1; e < depth; ++e) first.push_back({vars[e], make_int(mins[e])});
        Expr row = ir::substitute(index, first);
        Stmt else_case = uniform(0, 1) ? make_Store(b, make_int(-7), {row}) : Stmt();
        body = make_IfThenElse(guard, body, else_case);
      }
      if (d >= 0) body = loop(vars[d], mins[d], extents[d], body);
    }
    PrimFunc f{"f", {b}, body};
    PrimFunc out = loop_partition(f);
    SCOPED_TRACE(to_string(f));
    verify_func(out);
    expect_same_results(f, out, 1);
    if (HasFailure()) return;
    partitioned += !structural_equal(f.body, out.body);
  }
  EXPECT_GT(partitioned, 100);
}

}  // namespace
}  // namespace tessel::tir

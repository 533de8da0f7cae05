// Tests of loop_partition: golden IR (input -> expected printed IR) and interpreter
// equivalence of input and output on random data.
#include <gtest/gtest.h>

#include "ir/functor.h"
#include "ir/structural.h"
#include "pass_test_util.h"
#include "tir/loop_partition.h"
#include "tir/loop_versioning.h"
#include "tir/verify.h"

namespace tessel::tir {
namespace {

using namespace ir;
using testing::expect_same_results;

const DataType f32 = DataType::Float(32);

/// lhs < rhs, <=, > or >= as `which` is 0, 1, 2 or 3 (random guards pick one).
Expr compare(int which, const Expr& lhs, const Expr& rhs) {
  switch (which) {
    case 0:
      return lhs < rhs;
    case 1:
      return lhs <= rhs;
    case 2:
      return lhs > rhs;
    default:
      return lhs >= rhs;
  }
}

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

// A padded row: an `if` with an else, or a select of a load clamped into the data (a
// convolution reading its input in place). The interior loads plainly.
TEST(LoopPartition, GoldenPaddingGuardOrSelectSplitsThreeWays) {
  Buffer a = vec("A", 32), b = vec("B", 34);
  Var i("i");
  Expr inside = i >= 1 && i < 33;
  Stmt guarded = make_IfThenElse(inside, make_Store(b, make_Load(a, {i - 1}), {i}),
                                 make_Store(b, make_float(0.0f), {i}));
  Expr clamped = ir::max(ir::min(i - 1, make_int(31)), make_int(0));
  Stmt selected =
      make_Store(b, make_Select(inside, make_Load(a, {clamped}), make_float(0.0f)), {i});
  for (const Stmt& body : {guarded, selected}) {
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

/// Partitions `f` and checks the result as partition_checked does, naming `f` on failure;
/// returns whether anything changed.
bool partition_changes(const PrimFunc& f) {
  SCOPED_TRACE(to_string(f));
  PrimFunc out = loop_partition(f);
  verify_func(out);
  expect_same_results(f, out, 1);
  return !structural_equal(f.body, out.body);
}

/// A random nest of 1 to 3 loops i, j, k over random ranges and the buffer B that it walks
/// element by element at `index`.
struct RandomNest {
  explicit RandomNest(std::mt19937& rng) {
    auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    int depth = uniform(1, 3);
    int64_t size = 1;
    for (int d = 0; d < depth; ++d) {
      vars.push_back(Var(std::string(1, "ijk"[d])));
      mins.push_back(uniform(-3, 3));
      extents.push_back(uniform(1, 9));
      size *= extents.back();
    }
    b = Buffer::make("B", DataType::Index(), {make_int(size)});
    index = make_int(0);
    for (int d = 0; d < depth; ++d) index = index * extents[d] + (vars[d] - mins[d]);
  }

  std::vector<Var> vars;
  std::vector<int> mins, extents;
  Buffer b;
  Expr index;
};

// A select is how a vector loop computes lane by lane: such a loop is not split at one, and
// nor is a select on a Let expression's variable.
TEST(LoopPartition, SelectsInAVectorLoopOrALetAreLeftAlone) {
  Buffer a = vec("A", 8), b = vec("B", 8);
  Var i("i"), t("t");
  Expr lanes = make_Select(i < 3, make_Load(a, {i}), make_float(0.0f));
  Stmt vector =
      make_For(i, make_int(0), make_int(8), ForKind::Vectorized, make_Store(b, lanes, {i}));
  Expr let = make_Let(t, i + 2, make_Select(t < 5, make_Load(a, {i}), make_float(0.0f)));
  Stmt serial = loop(i, 0, 8, make_Store(b, let, {i}));
  for (const Stmt& s : {vector, serial}) EXPECT_TRUE(structural_equal(loop_partition(s), s)) << s;
}

// Random nests of 1 to 3 loops of random kinds whose store selects by a random guard
// (linear in the loop variables, or on a term no loop splits at; sometimes a conjunction):
// partitioning and versioning must not change what is stored, and must happen often.
TEST(LoopPartition, RandomSelectGuardsKeepTheirMeaning) {
  std::mt19937 rng(11);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const ForKind kinds[] = {ForKind::Serial, ForKind::Unrolled, ForKind::Vectorized,
                           ForKind::Parallel};
  int changed = 0;
  for (int c = 0; c < 300; ++c) {
    RandomNest nest(rng);
    const auto& [vars, mins, extents, b, index] = nest;
    int depth = static_cast<int>(vars.size());
    auto guard = [&]() {
      Expr lhs = make_int(uniform(-5, 5));
      if (uniform(0, 2) == 0) lhs = lhs + vars[0] % uniform(2, 4) * uniform(1, 3);
      for (const Var& v : vars) lhs = lhs + v * uniform(-3, 3);
      return compare(uniform(0, 3), lhs, make_int(uniform(-10, 10)));
    };
    Expr cond = uniform(0, 2) == 0 ? guard() && guard() : guard();
    Expr old = make_Load(b, {index});
    Stmt body = make_Store(b, make_Select(cond, old + index * 3 + 1, old - 7), {index});
    for (int d = depth - 1; d >= 0; --d)
      body = make_For(vars[d], mins[d], extents[d], kinds[uniform(0, 3)], body);
    changed += partition_changes(PrimFunc{"f", {b}, body});
    if (HasFailure()) return;
  }
  EXPECT_GT(changed, 100);
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
  int partitioned = 0;
  for (int c = 0; c < 300; ++c) {
    RandomNest nest(rng);
    const auto& [vars, mins, extents, b, index] = nest;
    int depth = static_cast<int>(vars.size());
    // The guard sits directly inside loop guard_depth (or outside every loop when -1), uses
    // the variables in scope there and wraps the loops below; its else branch writes the
    // first element of its row.
    int guard_depth = uniform(-1, depth - 1);
    auto linear_guard = [&]() {
      Expr lhs = make_int(uniform(-5, 5));
      for (int d = 0; d <= guard_depth; ++d) lhs = lhs + vars[d] * uniform(-3, 3);
      Expr rhs = make_int(uniform(-10, 10));
      return compare(uniform(0, 3), lhs, rhs);
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
    partitioned += partition_changes(PrimFunc{"f", {b}, body});
    if (HasFailure()) return;
  }
  EXPECT_GT(partitioned, 100);
}

// ---- Versioning: guards no loop can be split at ----

Stmt kind_loop(ForKind kind, const Var& v, Expr min, Expr extent, Stmt body) {
  return make_For(v, std::move(min), std::move(extent), kind, std::move(body));
}

// The matmul tile after a fuse, M = 10 rows in tiles of 4, N = 8 columns in panels of 4:
// f = fused(j.outer, i.outer), i.outer = f % 3; the last row tile is guarded.
PrimFunc fused_tile_func() {
  Buffer a = vec("A", 50), b = vec("B", 40), c = vec("C", 80);
  Buffer acc = Buffer::make("C.local", f32, {make_int(16)}, MemoryScope::Local);
  Var f("f"), i("i"), j("j"), k("k"), ii("i.inner"), jj("j.inner");
  auto row_guard = [&](const Var& r, Stmt body) {
    return make_IfThenElse(f % 3 * 4 + r < 10, body);
  };
  auto vec4 = [&](const Var& v, Stmt body) {
    return kind_loop(ForKind::Vectorized, v, 0, 4, body);
  };
  auto unroll4 = [&](const Var& v, Stmt body) {
    return kind_loop(ForKind::Unrolled, v, 0, 4, body);
  };
  Expr cell = i * 4 + j;
  Expr product = make_Load(a, {(f % 3 * 4 + i) * 5 + k}) * make_Load(b, {k * 8 + f / 3 * 4 + j});
  Stmt zero = make_Store(acc, make_float(0.0f), {cell});
  Stmt accumulate = make_Store(acc, make_Load(acc, {cell}) + product, {cell});
  Expr out_index = (f % 3 * 4 + ii) * 8 + f / 3 * 4 + jj;
  Stmt write_back = make_Store(c, make_Load(acc, {ii * 4 + jj}), {out_index});
  Stmt init = unroll4(i, row_guard(i, vec4(j, zero)));
  Stmt update = loop(k, 0, 5, unroll4(i, row_guard(i, vec4(j, accumulate))));
  Stmt copy = loop(ii, 0, 4, row_guard(ii, vec4(jj, write_back)));
  Stmt tile = make_Allocate(acc, make_Seq({init, update, copy}));
  return PrimFunc{"tile", {a, b, c}, kind_loop(ForKind::Parallel, f, 0, 6, tile)};
}

TEST(LoopVersioning, GoldenFusedTileIsVersionedAroundTheWholeTile) {
  PrimFunc out = partition_checked(fused_tile_func());
  EXPECT_EQ(to_string(out), R"(func tile(A: float32[50], B: float32[40], C: float32[80]) {
  parallel (f, 0, 6) {
    allocate C.local: float32[16] local {
      if (f % 3 < 2) {
        unrolled (i, 0, 4) {
          vectorized (j, 0, 4) {
            C.local[i * 4 + j] = 0.0f
          }
        }
        for (k, 0, 5) {
          unrolled (i, 0, 4) {
            vectorized (j, 0, 4) {
              C.local[i * 4 + j] = C.local[i * 4 + j] + A[(f % 3 * 4 + i) * 5 + k] * B[k * 8 + f / 3 * 4 + j]
            }
          }
        }
        for (i.inner, 0, 4) {
          vectorized (j.inner, 0, 4) {
            C[(f % 3 * 4 + i.inner) * 8 + f / 3 * 4 + j.inner] = C.local[i.inner * 4 + j.inner]
          }
        }
      } else {
        unrolled (i, 0, min(10 - f % 3 * 4, 4)) {
          vectorized (j, 0, 4) {
            C.local[i * 4 + j] = 0.0f
          }
        }
        for (k, 0, 5) {
          unrolled (i, 0, min(10 - f % 3 * 4, 4)) {
            vectorized (j, 0, 4) {
              C.local[i * 4 + j] = C.local[i * 4 + j] + A[f % 3 * 20 + i * 5 + k] * B[k * 8 + f / 3 * 4 + j]
            }
          }
        }
        for (i.inner, 0, min(10 - f % 3 * 4, 4)) {
          vectorized (j.inner, 0, 4) {
            C[f % 3 * 32 + i.inner * 8 + f / 3 * 4 + j.inner] = C.local[i.inner * 4 + j.inner]
          }
        }
      }
    }
  }
}
)");
}

TEST(LoopVersioning, GoldenGuardInAPlainNestedLoop) {
  Buffer b = vec("B", 24);
  Var i("i"), j("j");
  Stmt body = make_IfThenElse(i * i + j < 20, make_Store(b, make_float(1.0f), {i * 4 + j}));
  PrimFunc out = partition_checked(PrimFunc{"f", {b}, loop(i, 0, 6, loop(j, 0, 4, body))});
  EXPECT_EQ(to_string(out), R"(func f(B: float32[24]) {
  for (i, 0, 6) {
    if (i * i < 17) {
      for (j, 0, 4) {
        B[i * 4 + j] = 1.0f
      }
    } else {
      for (j, 0, min(max(20 - i * i, 0), 4)) {
        B[i * 4 + j] = 1.0f
      }
    }
  }
}
)");
}

TEST(LoopVersioning, GoldenConditionDecidedAtCompileTimeDuplicatesNothing) {
  Buffer b = vec("B", 24);
  Var f("f"), i("i");
  // f % 3 * 4 + i is at most 11: the first guard always holds, the second never does for
  // every i at once (it is left to loop partitioning).
  Stmt always = make_IfThenElse(f % 3 * 4 + i < 12, make_Store(b, make_float(1.0f), {f * 4 + i}));
  Stmt never = make_IfThenElse(f % 3 * 4 + i < 2, make_Store(b, make_float(2.0f), {f * 4 + i}));
  PrimFunc out = partition_checked(
      PrimFunc{"f", {b}, loop(f, 0, 6, make_Seq({loop(i, 0, 4, always), loop(i, 0, 4, never)}))});
  EXPECT_EQ(to_string(out), R"(func f(B: float32[24]) {
  for (f, 0, 6) {
    for (i, 0, 4) {
      B[f * 4 + i] = 1.0f
    }
    for (i, 0, max(2 - f % 3 * 4, 0)) {
      B[f * 4 + i] = 2.0f
    }
  }
}
)");
}

TEST(LoopVersioning, GoldenNonStrictComparisonsGiveExactConditions) {
  // f % 3 * 2 + i <= 5 holds for all i iff f % 3 * 2 + 3 <= 5; f % 3 * 2 - i >= -1 iff
  // f % 3 * 2 - 3 >= -1.
  Buffer b = vec("B", 24);
  Var f("f"), i("i");
  Stmt store = make_Store(b, make_float(1.0f), {f * 4 + i});
  Stmt le = make_IfThenElse(f % 3 * 2 + i <= 5, store);
  Stmt ge = make_IfThenElse(f % 3 * 2 - i >= -1, store);
  auto partitioned = [&](const Stmt& guarded) {
    return to_string(partition_checked(PrimFunc{"f", {b}, loop(f, 0, 6, loop(i, 0, 4, guarded))}));
  };
  EXPECT_EQ(partitioned(le), R"(func f(B: float32[24]) {
  for (f, 0, 6) {
    if (f % 3 < 2) {
      for (i, 0, 4) {
        B[f * 4 + i] = 1.0f
      }
    } else {
      for (i, 0, min(6 - f % 3 * 2, 4)) {
        B[f * 4 + i] = 1.0f
      }
    }
  }
}
)");
  EXPECT_EQ(partitioned(ge), R"(func f(B: float32[24]) {
  for (f, 0, 6) {
    if (0 < f % 3) {
      for (i, 0, 4) {
        B[f * 4 + i] = 1.0f
      }
    } else {
      for (i, 0, min(f % 3 * 2 + 2, 4)) {
        B[f * 4 + i] = 1.0f
      }
    }
  }
}
)");
}

/// Counts versions: ifs with loops in both branches (the inputs below have no such if).
int count_versions(const Stmt& s) {
  struct Counter : IRVisitor {
    void visit_IfThenElse(const IfThenElseNode* op) override {
      versions += op->else_case.defined() && has_loop(op->then_case) && has_loop(op->else_case);
      IRVisitor::visit_IfThenElse(op);
    }
    static bool has_loop(const Stmt& s) {
      struct Finder : IRVisitor {
        void visit_For(const ForNode*) override { found = true; }
        bool found = false;
      } finder;
      finder.visit(s);
      return finder.found;
    }
    int versions = 0;
  } counter;
  counter.visit(s);
  return counter.versions;
}

TEST(LoopVersioning, NestedFamiliesAreVersionedAtMostTwoDeep) {
  // Three guards, each undecided one loop deeper: p's at p's body, q's at q's body (in
  // both versions of p's), r's would need a third version around it and stays guarded.
  Buffer b = vec("B", 4 * 4 * 4 * 3 * 3 * 3);
  Var p("p"), q("q"), r("r"), i("i"), j("j"), k("k");
  Expr guard = p % 2 * 3 + i < 5 && q % 2 * 3 + j < 4 && r % 2 * 3 + k < 5;
  Expr index = ((((p * 4 + q) * 4 + r) * 3 + i) * 3 + j) * 3 + k;
  Stmt body = make_IfThenElse(guard, make_Store(b, make_float(1.0f), {index}));
  Stmt nest = loop(p, 0, 4,
                   loop(q, 0, 4, loop(r, 0, 4, loop(i, 0, 3, loop(j, 0, 3, loop(k, 0, 3, body))))));
  PrimFunc out = partition_checked(PrimFunc{"f", {b}, nest});
  EXPECT_EQ(count_versions(out.body), 3) << out;
  static_assert(kMaxVersionDepth == 2, "update the expected count");
}

TEST(LoopVersioning, RegionsLargerThanTheLimitAreNotDuplicated) {
  // A tile of n guarded loops (3 statements each, and the Seq): versioned while it fits.
  int64_t fits = (kMaxVersionedStmts - 1) / 3;
  for (int64_t n : {fits, fits + 1}) {
    Buffer b = vec("B", 6 * n * 2);
    Var f("f"), i("i");
    std::vector<Stmt> tile;
    for (int64_t c = 0; c < n; ++c) {
      Stmt store = make_Store(b, make_float(static_cast<double>(c)), {(f * n + c) * 2 + i});
      tile.push_back(loop(i, 0, 2, make_IfThenElse(f % 3 * 2 + i < 5, store)));
    }
    PrimFunc out = partition_checked(PrimFunc{"f", {b}, loop(f, 0, 6, make_Seq(tile))});
    EXPECT_EQ(count_versions(out.body), n == fits ? 1 : 0) << "tile of " << n << " loops";
  }
}

TEST(LoopVersioning, NoVersionInsideAVectorizedLoopOrOnMemory) {
  Buffer a = Buffer::make("A", DataType::Index(), {make_int(6)}), b = vec("B", 24);
  Var f("f"), i("i");
  Stmt store = make_Store(b, make_float(1.0f), {f * 4 + i});
  // A version inside a vectorized loop would branch on its lanes.
  Stmt in_vector = kind_loop(ForKind::Vectorized, f, 0, 6,
                             loop(i, 0, 4, make_IfThenElse(f % 3 * 2 + i < 5, store)));
  // A condition read from memory could change between the version and the guard.
  Stmt on_memory = loop(f, 0, 6, loop(i, 0, 4, make_IfThenElse(make_Load(a, {f}) + i < 5, store)));
  for (const Stmt& s : {in_vector, on_memory}) {
    PrimFunc out = partition_checked(PrimFunc{"f", {a, b}, s});
    EXPECT_EQ(count_versions(out.body), 0) << out;
  }
}

int uniform(std::mt19937& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

/// A random term in o that no loop can be split at: o % m, o / m, o * o or a min.
Expr random_nonlinear_term(std::mt19937& rng, const Var& o) {
  switch (uniform(rng, 0, 3)) {
    case 0:
      return o % uniform(rng, 2, 5) * uniform(rng, 1, 4);
    case 1:
      return o / uniform(rng, 2, 4) * uniform(rng, -3, 4);
    case 2:
      return o * o;
    default:
      return ir::min(o % 4, make_int(uniform(rng, 0, 3))) * uniform(rng, 1, 3);
  }
}

/// A random comparison of `term` plus the variables in `vars` with a constant.
Expr random_guard(std::mt19937& rng, const Expr& term, const std::vector<Var>& vars) {
  Expr lhs = term * uniform(rng, -1, 2) + uniform(rng, -6, 6);
  for (const Var& v : vars) lhs = lhs + v * uniform(rng, -2, 2);
  Expr rhs = make_int(uniform(rng, -10, 14));
  return compare(uniform(rng, 0, 3), lhs, rhs);
}

/// A random tile inside loop o over [o_min, o_min + o_extent): a nest of 1 or 2 loops of
/// random kinds accumulating into `out` (sized here), plus `scratch`[0]; a guard on `term`
/// and the loop variables (sometimes a conjunction) wraps the store (with or without an
/// else) or the innermost loop.
Stmt random_tile(std::mt19937& rng, const Var& o, int o_min, int o_extent, const Expr& term,
                 const std::string& out_name, const Buffer& scratch, Buffer& out) {
  const ForKind kinds[] = {ForKind::Serial, ForKind::Unrolled, ForKind::Vectorized,
                           ForKind::Parallel};
  int depth = uniform(rng, 1, 2);
  std::vector<Var> vars;
  std::vector<int> mins, extents;
  int64_t size = o_extent;
  for (int d = 0; d < depth; ++d) {
    vars.push_back(Var(std::string(1, "ij"[d])));
    mins.push_back(uniform(rng, -2, 2));
    extents.push_back(uniform(rng, 1, 6));
    size *= extents.back();
  }
  out = Buffer::make(out_name, DataType::Index(), {make_int(size)});
  Expr index = o - o_min;
  for (int d = 0; d < depth; ++d) index = index * extents[d] + (vars[d] - mins[d]);
  bool around_store = uniform(rng, 0, 1) == 1;
  std::vector<Var> in_scope(vars.begin(), vars.end() - (around_store ? 0 : 1));
  Expr cond = random_guard(rng, term, in_scope);
  if (uniform(rng, 0, 3) == 0) cond = cond && random_guard(rng, term, in_scope);
  Expr value = make_Load(out, {index}) + index * 3 + make_Load(scratch, {0});
  Stmt body = make_Store(out, value, {index});
  if (around_store) {
    Stmt else_case = uniform(rng, 0, 1) ? make_Store(out, make_int(-7), {index}) : Stmt();
    body = make_IfThenElse(cond, body, else_case);
  }
  for (int d = depth - 1; d >= 0; --d) {
    body = make_For(vars[d], mins[d], extents[d], kinds[uniform(rng, 0, 3)], body);
    if (d == depth - 1 && !around_store) body = make_IfThenElse(cond, body);
  }
  return body;
}

// Random tiles (1 to 3) inside an outer loop o, under an allocation and sometimes a let
// holding the non-linear term: versioning must not change what is stored, and must
// happen often.
TEST(LoopVersioning, RandomTilesKeepTheirMeaning) {
  std::mt19937 rng(7);
  const char* const names[] = {"B0", "B1", "B2"};
  int versioned = 0;
  for (int c = 0; c < 300; ++c) {
    Var o("o"), t("t");
    int o_min = uniform(rng, -3, 3), o_extent = uniform(rng, 1, 12);
    Expr term = random_nonlinear_term(rng, o);
    bool let_above = uniform(rng, 0, 2) == 0;
    Buffer scratch = Buffer::make("S", DataType::Index(), {make_int(1)}, MemoryScope::Local);
    std::vector<Buffer> params(uniform(rng, 1, 3));
    std::vector<Stmt> tiles = {make_Store(scratch, o * 5, {0})};
    for (size_t k = 0; k < params.size(); ++k)
      tiles.push_back(random_tile(rng, o, o_min, o_extent, let_above ? Expr(t) : term, names[k],
                                  scratch, params[k]));
    Stmt body = make_Allocate(scratch, make_Seq(tiles));
    if (let_above) body = make_LetStmt(t, term, body);
    PrimFunc f{"f", params, loop(o, o_min, o_extent, body)};
    PrimFunc out = loop_partition(f);
    SCOPED_TRACE(to_string(f));
    verify_func(out);
    expect_same_results(f, out, 2);
    if (HasFailure()) return;
    versioned += count_versions(out.body) > 0;
  }
  EXPECT_GT(versioned, 60);
}

}  // namespace
}  // namespace tessel::tir

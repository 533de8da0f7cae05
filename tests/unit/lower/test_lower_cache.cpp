// Lowering of cache_read, cache_write (with and without layouts), rfactor and stages with
// several outputs: numerics against naive loops and the storage they create.
#include <gtest/gtest.h>

#include "lower_test_util.h"

namespace tessel::lower {
namespace {

using namespace tessel::testing;

TEST(LowerCache, CacheReadLocalCopyAttachedPerRow) {
  std::mt19937 rng(30);
  for (int trial = 0; trial < 4; ++trial) {
    auto e = random_extents(rng, 3);
    Matmul mm(e[0], e[1], e[2]);
    schedule::Schedule s({mm.C});
    Tensor AL = s.cache_read(mm.A, "local", {mm.C});
    EXPECT_EQ(AL.name(), "A.local");
    s.compute_at(AL, mm.C, "i");
    mm.check(s, rng);
    ir::PrimFunc f = lower(s, {mm.A, mm.B, mm.C}, "mm");
    EXPECT_EQ(allocation_shape(f.body, "A.local"), (std::vector<int64_t>{1, mm.K})) << f;
    EXPECT_EQ(find_nodes<ir::AllocateNode>(f.body)[0]->buffer->scope, ir::MemoryScope::Local);
  }
}

TEST(LowerCache, CacheReadRewritesOnlyTheListedReaders) {
  std::mt19937 rng(31);
  const int64_t N = 11;
  Tensor A = te::placeholder({N}, f32, "A");
  Tensor C = te::compute(
      {N}, [&](Var i) { return A(i) * 2.0f; }, "C");
  Tensor D = te::compute(
      {N}, [&](Var i) { return A(i) + 1.0f; }, "D");
  schedule::Schedule s({C, D});
  s.cache_read(A, "global", {"C"});
  ir::PrimFunc f = lower(s, {A, C, D}, "two_readers");
  std::string text = ir::to_string(f);
  EXPECT_NE(text.find("C[i0] = A.global[i0] * 2.0f"), std::string::npos) << text;
  EXPECT_NE(text.find("D[i0_1] = A[i0_1] + 1.0f"), std::string::npos) << text;
  Floats a = random_floats(N, rng), c(N), d(N), wc(N), wd(N);
  for (int64_t i = 0; i < N; ++i) wc[i] = a[i] * 2.0f, wd[i] = a[i] + 1.0f;
  run_func(f, {&a, &c, &d});
  expect_close(c, wc, 0);
  expect_close(d, wd, 0);
}

TEST(LowerCache, CacheReadWithPackingLayout) {
  std::mt19937 rng(32);
  for (int trial = 0; trial < 6; ++trial) {
    auto e = random_extents(rng, 3, 40);
    Matmul mm(e[0], e[1], e[2]);
    schedule::Schedule s({mm.C});
    // B[K][N] packed as Bp[ceil(N/16)][K][16].
    Tensor Bp =
        s.cache_read(mm.B, "global", {mm.C}, schedule::Layout{}.split(1, 16).reorder({1, 0, 2}));
    EXPECT_EQ(s.stage(Bp).leaves, (std::vector<std::string>{"ax1.outer", "ax0", "ax1.inner"}));
    s.vectorize(Bp, "ax1.inner");
    mm.check(s, rng);
    ir::PrimFunc f = lower(s, {mm.A, mm.B, mm.C}, "mm");
    EXPECT_EQ(allocation_shape(f.body, "B.global"),
              (std::vector<int64_t>{(mm.N + 15) / 16, mm.K, 16}))
        << f;
  }
}

TEST(LowerCache, PackedCacheAttachedAtATileReadsOnePanel) {
  std::mt19937 rng(33);
  for (int trial = 0; trial < 4; ++trial) {
    auto e = random_extents(rng, 3, 40);
    Matmul mm(e[0], e[1], e[2]);
    schedule::Schedule s({mm.C});
    Tensor Bp =
        s.cache_read(mm.B, "local", {mm.C}, schedule::Layout{}.split(1, 16).reorder({1, 0, 2}));
    schedule::TileLoops t = s.tile(mm.C, "j", "i", 16, 4);
    s.compute_at(Bp, mm.C, t.x_outer);
    mm.check(s, rng);
    ir::PrimFunc f = lower(s, {mm.A, mm.B, mm.C}, "mm");
    EXPECT_EQ(allocation_shape(f.body, "B.local"), (std::vector<int64_t>{1, mm.K, 16})) << f;
  }
}

TEST(LowerCache, CacheWriteLocalAccumulatesATile) {
  std::mt19937 rng(34);
  for (int trial = 0; trial < 5; ++trial) {
    auto e = random_extents(rng, 3);
    Matmul mm(e[0], e[1], e[2]);
    schedule::Schedule s({mm.C});
    Tensor CL = s.cache_write(mm.C, "local");
    EXPECT_EQ(CL.name(), "C.local");
    EXPECT_EQ(s.stage(CL).leaves, (std::vector<std::string>{"i", "j", "k"}));
    EXPECT_EQ(s.stage(mm.C).leaves, (std::vector<std::string>{"i", "j"}));
    schedule::TileLoops t = s.tile(mm.C, "i", "j", 4, 4);
    s.compute_at(CL, mm.C, t.y_outer);
    s.reorder(CL, {"k", "i", "j"});
    mm.check(s, rng);
    ir::PrimFunc f = lower(s, {mm.A, mm.B, mm.C}, "mm");
    EXPECT_EQ(allocation_shape(f.body, "C.local"),
              (std::vector<int64_t>{std::min<int64_t>(4, mm.M), std::min<int64_t>(4, mm.N)}))
        << f;
  }
}

TEST(LowerCache, CacheWriteWithLayout) {
  std::mt19937 rng(35);
  Matmul mm(8, 12, 5);
  schedule::Schedule s({mm.C});
  // C.local[j/4][i][j%4]
  Tensor CL = s.cache_write(mm.C, "global", schedule::Layout{}.split(1, 4).reorder({1, 0, 2}));
  EXPECT_EQ(s.stage(CL).roots, (std::vector<std::string>{"j.outer", "i", "j.inner", "k"}));
  s.reorder(CL, {"k", "j.inner"});
  s.vectorize(CL, "j.inner");
  mm.check(s, rng);
  ir::PrimFunc f = lower(s, {mm.A, mm.B, mm.C}, "mm");
  EXPECT_EQ(allocation_shape(f.body, "C.global"), (std::vector<int64_t>{3, 8, 4})) << f;
  EXPECT_NE(ir::to_string(f).find("C[i_1, j] = C.global[j / 4, i_1, j % 4]"), std::string::npos)
      << f;
}

TEST(LowerCache, RfactorSplitReduction) {
  std::mt19937 rng(36);
  for (int factor_axis : {0, 1, 2}) {
    for (int trial = 0; trial < 3; ++trial) {
      auto e = random_extents(rng, 3, 30);
      Matmul mm(e[0], e[1], e[2]);
      schedule::Schedule s({mm.C});
      auto [ko, ki] = s.split(mm.C, "k", 4);
      Tensor rf = s.rfactor(mm.C, ki, factor_axis);
      EXPECT_EQ(rf.name(), "C.rf");
      std::vector<int64_t> shape{mm.M, mm.N};
      shape.insert(shape.begin() + factor_axis, 4);
      ASSERT_EQ(rf.ndim(), 3);
      for (int d = 0; d < 3; ++d) EXPECT_TRUE(ir::is_const_int(rf.shape()[d], shape[d]));
      EXPECT_EQ(s.stage(mm.C).leaves, (std::vector<std::string>{"i", "j", "k.inner"}));
      EXPECT_EQ(s.stage(rf).roots.back(), "k.outer");
      s.parallel(rf, "k.inner");
      mm.check(s, rng, 1e-4f);
    }
  }
}

TEST(LowerCache, RfactorOfAnUnsplitAxisAndOfAnOuterLoop) {
  std::mt19937 rng(37);
  Matmul whole(5, 6, 7);
  schedule::Schedule s1({whole.C});
  s1.rfactor(whole.C, "k", 0);  // C.rf[k, i, j] = A[i, k] * B[k, j]
  whole.check(s1, rng);
  Matmul outer(5, 6, 11);
  schedule::Schedule s2({outer.C});
  auto [ko, ki] = s2.split(outer.C, "k", 3);
  Tensor rf = s2.rfactor(outer.C, ko, 1);  // partial sums over k.inner, one per k.outer
  EXPECT_TRUE(ir::is_const_int(rf.shape()[1], 4));
  outer.check(s2, rng);
}

TEST(LowerCache, StageWithSeveralOutputs) {
  std::mt19937 rng(38);
  for (int trial = 0; trial < 4; ++trial) {
    auto e = random_extents(rng, 2);
    const int64_t M = e[0], N = e[1];
    Tensor A = te::placeholder({M, N}, f32, "A");
    Tensor B = te::placeholder({M, N}, f32, "B");
    std::vector<Tensor> mo =
        te::compute_multi({M, N},
                          [&](Var i, Var j) {
                            return std::vector<ir::Expr>{A(i, j) + B(i, j), A(i, j) * B(i, j)};
                          },
                          "MO", {"i", "j"});
    Tensor D = te::compute({M, N}, [&](Var i, Var j) { return mo[0](i, j) - mo[1](i, j); }, "D",
                           {"i", "j"});
    schedule::Schedule s({mo[0], D});
    auto [io, ii] = s.split(D, "i", 3);
    s.split(mo[0], "j", 2);
    ir::PrimFunc f = lower(s, {A, B, mo[0], D}, "multi");
    // One nest writes both outputs: MO.v0 is a parameter, MO.v1 an allocation.
    EXPECT_EQ(allocation_shape(f.body, "MO.v1"), (std::vector<int64_t>{M, N})) << f;
    Floats a = random_floats(M * N, rng), b = random_floats(M * N, rng);
    Floats sum(M * N), d(M * N), wsum(M * N), wd(M * N);
    for (int64_t x = 0; x < M * N; ++x) {
      wsum[x] = a[x] + b[x];
      wd[x] = wsum[x] - a[x] * b[x];
    }
    run_func(f, {&a, &b, &sum, &d});
    expect_close(sum, wsum, 0);
    expect_close(d, wd, 1e-6f);
  }
}

TEST(LowerCache, MultiOutputReductionAttached) {
  std::mt19937 rng(39);
  const int64_t M = 6, K = 9;
  Tensor A = te::placeholder({M, K}, f32, "A");
  ir::IterVar k = te::reduce_axis(K, "k");
  std::vector<Tensor> stats = te::compute_multi(
      {M},
      [&](Var i) {
        return std::vector<ir::Expr>{te::sum(A(i, k), {k}), te::max_reduce(A(i, k), {k})};
      },
      "stats", {"r"});
  Tensor out = te::compute({M}, [&](Var i) { return stats[0](i) + stats[1](i); }, "out", {"i"});
  schedule::Schedule s({out});
  s.compute_at(stats[0], out, "i");
  ir::PrimFunc f = lower(s, {A, out}, "stats");
  EXPECT_EQ(allocation_shape(f.body, "stats.v0"), std::vector<int64_t>{1}) << f;
  EXPECT_EQ(allocation_shape(f.body, "stats.v1"), std::vector<int64_t>{1}) << f;
  Floats a = random_floats(M * K, rng), o(M), want(M);
  for (int64_t i = 0; i < M; ++i) {
    float total = 0.0f, best = -INFINITY;
    for (int64_t q = 0; q < K; ++q) total += a[i * K + q], best = std::fmax(best, a[i * K + q]);
    want[i] = total + best;
  }
  run_func(f, {&a, &o});
  expect_close(o, want, 1e-6f);
}

}  // namespace
}  // namespace tessel::lower

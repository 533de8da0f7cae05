// Lowering of loop transformations (split, tile, fuse, reorder, annotations): numerics over
// random shapes against naive loops, structure of the emitted IR, and one golden text.
#include <gtest/gtest.h>

#include "lower_test_util.h"

namespace tessel::lower {
namespace {

using namespace tessel::testing;

/// B[i][j] = A[i][j] * 3 + i - j over an M x N grid.
struct Elementwise {
  Elementwise(int64_t m, int64_t n) : M(m), N(n) {
    A = te::placeholder({M, N}, f32, "A");
    B = te::compute(
        {M, N}, [&](Var i, Var j) { return A(i, j) * 3.0f + ir::cast(f32, i) - ir::cast(f32, j); },
        "B", {"i", "j"});
  }
  void check(const schedule::Schedule& s, std::mt19937& rng) const {
    ir::PrimFunc f = lower(s, {A, B}, "ew");
    Floats a = random_floats(M * N, rng), b(M * N, 0.0f), want(M * N);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j)
        want[i * N + j] = a[i * N + j] * 3.0f + static_cast<float>(i) - static_cast<float>(j);
    run_func(f, {&a, &b});
    expect_close(b, want, 1e-6f);
  }
  int64_t M, N;
  Tensor A, B;
};

TEST(LowerLoops, UnscheduledMatmul) {
  std::mt19937 rng(1);
  for (int trial = 0; trial < 4; ++trial) {
    auto e = random_extents(rng, 3);
    Matmul mm(e[0], e[1], e[2]);
    mm.check(schedule::Schedule({mm.C}), rng);
  }
}

TEST(LowerLoops, SplitByFactorOverRandomShapes) {
  std::mt19937 rng(2);
  for (int trial = 0; trial < 8; ++trial) {
    auto e = random_extents(rng, 2);
    int64_t factor = random_extents(rng, 1, 9)[0];
    Elementwise ew(e[0], e[1]);
    schedule::Schedule s({ew.B});
    auto [io, ii] = s.split(ew.B, "i", factor);
    s.split(ew.B, ii, 2);
    s.split(ew.B, "j", factor + 1);
    ew.check(s, rng);
  }
}

TEST(LowerLoops, SplitNpartsOverRandomShapes) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 8; ++trial) {
    auto e = random_extents(rng, 2);
    int64_t parts = random_extents(rng, 1, 7)[0];
    Elementwise ew(e[0], e[1]);
    schedule::Schedule s({ew.B});
    auto [jo, ji] = s.split_nparts(ew.B, "j", parts);
    EXPECT_EQ(jo, "j.outer");
    EXPECT_EQ(ji, "j.inner");
    ew.check(s, rng);
    ir::PrimFunc f = lower(s, {ew.A, ew.B}, "ew");
    auto loops = find_nodes<ir::ForNode>(f.body);
    ASSERT_EQ(loops.size(), 3u);
    EXPECT_TRUE(ir::is_const_int(loops[1]->extent, parts));
  }
}

TEST(LowerLoops, GuardOnlyWhenSplitIsNotDivisible) {
  Elementwise divisible(8, 6), ragged(10, 6);
  for (Elementwise* ew : {&divisible, &ragged}) {
    schedule::Schedule s({ew->B});
    s.split(ew->B, "i", 4);
    ir::PrimFunc f = lower(s, {ew->A, ew->B}, "ew");
    EXPECT_EQ(find_nodes<ir::IfThenElseNode>(f.body).size(), ew == &ragged ? 1u : 0u) << f;
  }
  // nparts: 6 split into 4 parts needs a guard (4 * 2 > 6), into 3 does not.
  for (int64_t parts : {3, 4}) {
    schedule::Schedule s({divisible.B});
    s.split_nparts(divisible.B, "j", parts);
    ir::PrimFunc f = lower(s, {divisible.A, divisible.B}, "ew");
    EXPECT_EQ(find_nodes<ir::IfThenElseNode>(f.body).size(), parts == 4 ? 1u : 0u) << f;
  }
}

TEST(LowerLoops, SplitLargerThanExtentAndUnitDimensions) {
  std::mt19937 rng(4);
  Elementwise ew(1, 3);
  schedule::Schedule s({ew.B});
  s.split(ew.B, "i", 8);
  s.split(ew.B, "j", 16);
  ew.check(s, rng);
}

TEST(LowerLoops, TileOrdersLoops) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 6; ++trial) {
    auto e = random_extents(rng, 3);
    Matmul mm(e[0], e[1], e[2]);
    schedule::Schedule s({mm.C});
    schedule::TileLoops t = s.tile(mm.C, "i", "j", 4, 3);
    EXPECT_EQ(s.stage(mm.C).leaves,
              (std::vector<std::string>{t.x_outer, t.y_outer, t.x_inner, t.y_inner, "k"}));
    mm.check(s, rng);
  }
}

TEST(LowerLoops, FuseUsesDivAndMod) {
  std::mt19937 rng(6);
  for (int trial = 0; trial < 6; ++trial) {
    auto e = random_extents(rng, 2);
    Elementwise ew(e[0], e[1]);
    schedule::Schedule s({ew.B});
    auto [jo, ji] = s.split(ew.B, "j", 4);
    std::string fused = s.fuse(ew.B, "i", jo);
    EXPECT_EQ(fused, "i.j.outer.fused");
    s.split(ew.B, fused, 3);
    ew.check(s, rng);
  }
  Elementwise ew(6, 5);
  schedule::Schedule s({ew.B});
  s.fuse(ew.B, "i", "j");
  ir::PrimFunc f = lower(s, {ew.A, ew.B}, "ew");
  auto loops = find_nodes<ir::ForNode>(f.body);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_TRUE(ir::is_const_int(loops[0]->extent, 30));
  std::string text = ir::to_string(f);
  EXPECT_NE(text.find("i.j.fused / 5"), std::string::npos) << text;
  EXPECT_NE(text.find("i.j.fused % 5"), std::string::npos) << text;
}

TEST(LowerLoops, ReorderPutsDataParallelLoopsInsideReduction) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 6; ++trial) {
    auto e = random_extents(rng, 3);
    Matmul mm(e[0], e[1], e[2]);
    schedule::Schedule s({mm.C});
    auto [ko, ki] = s.split(mm.C, "k", 4);
    auto [jo, ji] = s.split(mm.C, "j", 3);
    s.reorder(mm.C, {ko, "i", ki, jo, ji});
    mm.check(s, rng);
  }
}

TEST(LowerLoops, ReductionInitIsPlacedBeforeTheFirstReductionLoop) {
  Matmul mm(4, 6, 5);
  schedule::Schedule s({mm.C});
  s.reorder(mm.C, {"i", "k", "j"});
  ir::PrimFunc f = lower(s, {mm.A, mm.B, mm.C}, "mm");
  // for i { for j { C = 0 } for k { for j { C += ... } } }
  const auto* outer = f.body.as<ir::ForNode>();
  ASSERT_TRUE(outer) << f;
  const auto* seq = outer->body.as<ir::SeqNode>();
  ASSERT_TRUE(seq && seq->seq.size() == 2u) << f;
  const auto* init = seq->seq[0].as<ir::ForNode>();
  const auto* update = seq->seq[1].as<ir::ForNode>();
  ASSERT_TRUE(init && update) << f;
  EXPECT_EQ(init->var.name(), "j");
  EXPECT_EQ(update->var.name(), "k");
  EXPECT_TRUE(init->body.as<ir::StoreNode>()) << f;
}

TEST(LowerLoops, AnnotationsBecomeLoopKinds) {
  std::mt19937 rng(8);
  Matmul mm(9, 20, 7);
  schedule::Schedule s({mm.C});
  schedule::TileLoops t = s.tile(mm.C, "i", "j", 4, 8);
  auto [ko, ki] = s.split(mm.C, "k", 2);
  s.reorder(mm.C, {t.x_outer, t.y_outer, ko, t.x_inner, ki, t.y_inner});
  s.parallel(mm.C, t.x_outer);
  s.vectorize(mm.C, t.y_inner);
  s.unroll(mm.C, ki);
  ir::PrimFunc f = lower(s, {mm.A, mm.B, mm.C}, "mm");
  EXPECT_EQ(loops_of_kind(f.body, ir::ForKind::Parallel), std::vector<std::string>{"i.outer"});
  // The init nest repeats the vectorized data-parallel loop.
  EXPECT_EQ(loops_of_kind(f.body, ir::ForKind::Vectorized),
            (std::vector<std::string>{"j.inner", "j.inner"}));
  EXPECT_EQ(loops_of_kind(f.body, ir::ForKind::Unrolled), std::vector<std::string>{"k.inner"});
  mm.check(s, rng);
}

TEST(LowerLoops, GoldenSplitReorder) {
  Matmul mm(10, 7, 6);
  schedule::Schedule s({mm.C});
  auto [io, ii] = s.split(mm.C, "i", 4);
  s.reorder(mm.C, {io, "j", "k", ii});
  const char* expected = R"(func mm(A: float32[10, 6], B: float32[6, 7], C: float32[10, 7]) {
  for (i.outer, 0, 3) {
    for (j, 0, 7) {
      for (i.inner, 0, 4) {
        if (i.outer * 4 + i.inner < 10) {
          C[i.outer * 4 + i.inner, j] = 0.0f
        }
      }
      for (k, 0, 6) {
        for (i.inner, 0, 4) {
          if (i.outer * 4 + i.inner < 10) {
            C[i.outer * 4 + i.inner, j] = C[i.outer * 4 + i.inner, j] + A[i.outer * 4 + i.inner, k] * B[k, j]
          }
        }
      }
    }
  }
}
)";
  EXPECT_EQ(ir::to_string(lower(s, {mm.A, mm.B, mm.C}, "mm")), expected);
}

TEST(LowerLoops, ReductionsSumProdMinMax) {
  std::mt19937 rng(9);
  for (ir::ReduceOp op :
       {ir::ReduceOp::Sum, ir::ReduceOp::Prod, ir::ReduceOp::Min, ir::ReduceOp::Max}) {
    auto e = random_extents(rng, 2, 13);
    int64_t M = e[0], K = e[1];
    Tensor A = te::placeholder({M, K}, f32, "A");
    ir::IterVar k = te::reduce_axis(K, "k");
    Tensor R = te::compute({M},
                           [&](Var i) {
                             ir::Expr v = A(i, k);
                             switch (op) {
                               case ir::ReduceOp::Sum:
                                 return te::sum(v, {k});
                               case ir::ReduceOp::Prod:
                                 return te::prod(v * 0.5f + 1.0f, {k});
                               case ir::ReduceOp::Min:
                                 return te::min_reduce(v, {k});
                               case ir::ReduceOp::Max:
                                 return te::max_reduce(v, {k});
                             }
                             return ir::Expr();
                           },
                           "R", {"i"});
    schedule::Schedule s({R});
    s.split(R, "k", 4);
    ir::PrimFunc f = lower(s, {A, R}, "reduce");
    Floats a = random_floats(M * K, rng), r(M, 0.0f), want(M);
    for (int64_t i = 0; i < M; ++i) {
      float acc = op == ir::ReduceOp::Sum    ? 0.0f
                  : op == ir::ReduceOp::Prod ? 1.0f
                  : op == ir::ReduceOp::Min  ? INFINITY
                                             : -INFINITY;
      for (int64_t q = 0; q < K; ++q) {
        float v = a[i * K + q];
        if (op == ir::ReduceOp::Sum) acc += v;
        if (op == ir::ReduceOp::Prod) acc *= v * 0.5f + 1.0f;
        if (op == ir::ReduceOp::Min) acc = std::fmin(acc, v);
        if (op == ir::ReduceOp::Max) acc = std::fmax(acc, v);
      }
      want[i] = acc;
    }
    run_func(f, {&a, &r});
    expect_close(r, want, 1e-5f);
  }
}

TEST(LowerLoops, ReductionConditionAndNonZeroMin) {
  std::mt19937 rng(10);
  const int64_t M = 5, K = 9;
  Tensor A = te::placeholder({M, K}, f32, "A");
  ir::IterVar k = te::reduce_axis(2, 6, "k");  // k in [2, 8)
  Tensor R =
      te::compute({M}, [&](Var i) { return te::sum(A(i, k), {k}, k.var % 2 == 0); }, "R", {"i"});
  schedule::Schedule s({R});
  s.split(R, "k", 4);
  ir::PrimFunc f = lower(s, {A, R}, "reduce");
  Floats a = random_floats(M * K, rng), r(M, 0.0f), want(M, 0.0f);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t q = 2; q < 8; q += 2) want[i] += a[i * K + q];
  run_func(f, {&a, &r});
  expect_close(r, want, 1e-6f);
}

TEST(LowerLoops, ScalarOutput) {
  std::mt19937 rng(11);
  Tensor A = te::placeholder({7}, f32, "A");
  ir::IterVar k = te::reduce_axis(7, "k");
  Tensor S = te::compute(
      {}, [&]() { return te::sum(A(k), {k}); }, "S");
  schedule::Schedule s({S});
  s.split(S, "k", 3);
  ir::PrimFunc f = lower(s, {A, S}, "total");
  Floats a = random_floats(7, rng), out(1, 0.0f);
  float want = 0.0f;
  for (float v : a) want += v;
  run_func(f, {&a, &out});
  expect_close(out, {want}, 1e-6f);
}

}  // namespace
}  // namespace tessel::lower

// Lowering of compute_at / compute_inline / compute_root: inferred regions (allocation
// sizes), guards of overhanging regions, numerics against naive loops, and schedules that
// lower() must reject.
#include <gtest/gtest.h>

#include "lower_test_util.h"

namespace tessel::lower {
namespace {

using namespace tessel::testing;

/// P = A * 2 feeding C = P x B.
struct ScaledMatmul {
  ScaledMatmul(int64_t m, int64_t n, int64_t k) : M(m), N(n), K(k) {
    A = te::placeholder({M, K}, f32, "A");
    B = te::placeholder({K, N}, f32, "B");
    P = te::compute({M, K}, [&](Var i, Var j) { return A(i, j) * 2.0f; }, "P", {"p0", "p1"});
    ir::IterVar r = te::reduce_axis(K, "k");
    C = te::compute({M, N}, [&](Var i, Var j) { return te::sum(P(i, r) * B(r, j), {r}); }, "C",
                    {"i", "j"});
  }
  ir::PrimFunc check(const schedule::Schedule& s, std::mt19937& rng) const {
    ir::PrimFunc f = lower(s, {A, B, C}, "scaled_matmul");
    Floats a = random_floats(M * K, rng), b = random_floats(K * N, rng), c(M * N, 0.0f);
    Floats a2 = a;
    for (float& x : a2) x *= 2.0f;
    run_func(f, {&a, &b, &c});
    expect_close(c, matmul_ref(a2, b, M, N, K));
    return f;
  }
  int64_t M, N, K;
  Tensor A, B, P, C;
};

TEST(LowerAttach, ComputeAtOuterLoopAllocatesTheTile) {
  std::mt19937 rng(20);
  for (int trial = 0; trial < 6; ++trial) {
    auto e = random_extents(rng, 3);
    ScaledMatmul sm(e[0], e[1], e[2]);
    schedule::Schedule s({sm.C});
    auto [io, ii] = s.split(sm.C, "i", 4);
    s.compute_at(sm.P, sm.C, io);
    ir::PrimFunc f = sm.check(s, rng);
    // A constant region (one outer iteration) is clamped to the tensor.
    EXPECT_EQ(allocation_shape(f.body, "P"),
              (std::vector<int64_t>{std::min<int64_t>(4, sm.M), sm.K}))
        << f;
  }
}

TEST(LowerAttach, ComputeAtInnerLoopAllocatesOneRow) {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 4; ++trial) {
    auto e = random_extents(rng, 3);
    ScaledMatmul sm(e[0], e[1], e[2]);
    schedule::Schedule s({sm.C});
    schedule::TileLoops t = s.tile(sm.C, "i", "j", 4, 3);
    s.compute_at(sm.P, sm.C, t.y_inner);
    ir::PrimFunc f = sm.check(s, rng);
    EXPECT_EQ(allocation_shape(f.body, "P"), (std::vector<int64_t>{1, sm.K})) << f;
  }
}

TEST(LowerAttach, ComputeAtInsideReductionLoop) {
  std::mt19937 rng(22);
  for (int trial = 0; trial < 4; ++trial) {
    auto e = random_extents(rng, 3);
    ScaledMatmul sm(e[0], e[1], e[2]);
    schedule::Schedule s({sm.C});
    auto [ko, ki] = s.split(sm.C, "k", 4);
    s.reorder(sm.C, {ko, "i", "j", ki});
    s.compute_at(sm.P, sm.C, ko);
    ir::PrimFunc f = sm.check(s, rng);
    EXPECT_EQ(allocation_shape(f.body, "P"), (std::vector<int64_t>{sm.M, 4})) << f;
  }
}

TEST(LowerAttach, StencilRegionCoversTheHalo) {
  std::mt19937 rng(23);
  for (int trial = 0; trial < 6; ++trial) {
    auto e = random_extents(rng, 2, 20);
    const int64_t M = e[0] + 2, N = e[1] + 2;
    Tensor A = te::placeholder({M, N}, f32, "A");
    Tensor Bx =
        te::compute({M, N - 2}, [&](Var i, Var j) { return A(i, j) + A(i, j + 1) + A(i, j + 2); },
                    "Bx", {"x", "y"});
    Tensor By = te::compute({M - 2, N - 2},
                            [&](Var i, Var j) { return Bx(i, j) + Bx(i + 1, j) + Bx(i + 2, j); },
                            "By", {"i", "j"});
    schedule::Schedule s({By});
    auto [io, ii] = s.split(By, "i", 4);
    s.compute_at(Bx, By, io);
    s.vectorize(Bx, "y");
    ir::PrimFunc f = lower(s, {A, By}, "blur");
    EXPECT_EQ(allocation_shape(f.body, "Bx"),
              (std::vector<int64_t>{std::min<int64_t>(6, M), N - 2}))
        << f;
    Floats a = random_floats(M * N, rng), out((M - 2) * (N - 2), 0.0f), want(out.size());
    for (int64_t i = 0; i < M - 2; ++i)
      for (int64_t j = 0; j < N - 2; ++j) {
        float acc = 0.0f;
        for (int di = 0; di < 3; ++di) {
          float row = 0.0f;
          for (int dj = 0; dj < 3; ++dj) row += a[(i + di) * N + j + dj];
          acc += row;
        }
        want[i * (N - 2) + j] = acc;
      }
    run_func(f, {&a, &out});
    expect_close(out, want, 1e-5f);
  }
}

TEST(LowerAttach, ChainOfAttachedStages) {
  std::mt19937 rng(24);
  for (int trial = 0; trial < 4; ++trial) {
    auto e = random_extents(rng, 2);
    const int64_t M = e[0], N = e[1];
    Tensor A = te::placeholder({M, N}, f32, "A");
    Tensor P = te::compute({M, N}, [&](Var i, Var j) { return A(i, j) + 1.0f; }, "P", {"a", "b"});
    Tensor Q = te::compute({M, N}, [&](Var i, Var j) { return P(i, j) * 3.0f; }, "Q", {"c", "d"});
    Tensor C =
        te::compute({M, N}, [&](Var i, Var j) { return Q(i, j) - P(i, j); }, "C", {"i", "j"});
    schedule::Schedule s({C});
    auto [io, ii] = s.split(C, "i", 2);
    s.compute_at(Q, C, io);
    s.compute_at(P, Q, "c");  // P is read by Q and by C: both inside C.i.outer
    ir::PrimFunc f;
    EXPECT_THROW(f = lower(s, {A, C}, "chain"), ScheduleError);  // C reads P outside Q's loop
    s.compute_at(P, C, io);
    f = lower(s, {A, C}, "chain");
    Floats a = random_floats(M * N, rng), c(M * N, 0.0f), want(M * N);
    for (size_t x = 0; x < a.size(); ++x) want[x] = (a[x] + 1.0f) * 3.0f - (a[x] + 1.0f);
    run_func(f, {&a, &c});
    expect_close(c, want, 1e-6f);
    EXPECT_EQ(allocation_shape(f.body, "P"), (std::vector<int64_t>{2, N})) << f;
  }
}

TEST(LowerAttach, ComputeInlineSubstitutesTheBody) {
  std::mt19937 rng(25);
  for (int trial = 0; trial < 4; ++trial) {
    auto e = random_extents(rng, 3);
    ScaledMatmul sm(e[0], e[1], e[2]);
    schedule::Schedule s({sm.C});
    s.compute_inline(sm.P);
    s.split(sm.C, "k", 3);
    ir::PrimFunc f = sm.check(s, rng);
    EXPECT_TRUE(find_nodes<ir::AllocateNode>(f.body).empty()) << f;
    EXPECT_NE(ir::to_string(f).find("] * 2.0f * B["), std::string::npos) << f;
  }
}

TEST(LowerAttach, InlineChainIntoAnAttachedStage) {
  std::mt19937 rng(26);
  const int64_t M = 7, N = 9;
  Tensor A = te::placeholder({M, N}, f32, "A");
  Tensor P = te::compute(
      {M, N}, [&](Var i, Var j) { return A(i, j) + 1.0f; }, "P");
  Tensor Q = te::compute(
      {M, N}, [&](Var i, Var j) { return P(i, j) * P(i, j); }, "Q");
  Tensor R = te::compute(
      {M, N}, [&](Var i, Var j) { return Q(i, j) - 1.0f; }, "R");
  Tensor C = te::compute({M, N}, [&](Var i, Var j) { return R(i, j) * 0.5f; }, "C", {"i", "j"});
  schedule::Schedule s({C});
  s.compute_inline(P);
  s.compute_inline(Q);
  auto [io, ii] = s.split(C, "i", 3);
  s.compute_at(R, C, io);  // R reads A through the inlined P and Q
  ir::PrimFunc f = lower(s, {A, C}, "inline_chain");
  EXPECT_EQ(allocation_shape(f.body, "R"), (std::vector<int64_t>{3, N})) << f;
  Floats a = random_floats(M * N, rng), c(M * N, 0.0f), want(M * N);
  for (size_t x = 0; x < a.size(); ++x) want[x] = ((a[x] + 1) * (a[x] + 1) - 1) * 0.5f;
  run_func(f, {&a, &c});
  expect_close(c, want, 1e-6f);
}

TEST(LowerAttach, ComputeAtThroughAnInlinedStage) {
  std::mt19937 rng(27);
  ScaledMatmul sm(6, 5, 4);
  // Q = P + 0 is inlined; P is attached at C, which reads it through Q.
  Tensor Q = te::compute(
      {6, 4}, [&](Var i, Var j) { return sm.P(i, j) + 0.0f; }, "Q");
  ir::IterVar r = te::reduce_axis(4, "k");
  Tensor C = te::compute({6, 5}, [&](Var i, Var j) { return te::sum(Q(i, r) * sm.B(r, j), {r}); },
                         "C2", {"i", "j"});
  schedule::Schedule s({C});
  s.compute_inline(Q);
  s.compute_at(sm.P, C, "i");
  ir::PrimFunc f = lower(s, {sm.A, sm.B, C}, "f");
  EXPECT_EQ(allocation_shape(f.body, "P"), (std::vector<int64_t>{1, 4})) << f;
  Floats a = random_floats(24, rng), b = random_floats(20, rng), c(30, 0.0f), a2 = a;
  for (float& x : a2) x *= 2.0f;
  run_func(f, {&a, &b, &c});
  expect_close(c, matmul_ref(a2, b, 6, 5, 4));
}

TEST(LowerAttach, ComputeRootUndoesComputeAt) {
  std::mt19937 rng(28);
  ScaledMatmul sm(5, 6, 7);
  schedule::Schedule s({sm.C});
  s.compute_at(sm.P, sm.C, "i");
  s.compute_root(sm.P);
  ir::PrimFunc f = sm.check(s, rng);
  EXPECT_EQ(allocation_shape(f.body, "P"), (std::vector<int64_t>{5, 7})) << f;
  const auto* alloc = f.body.as<ir::AllocateNode>();
  ASSERT_TRUE(alloc) << "a root stage is allocated at the top\n" << f;
  EXPECT_EQ(alloc->buffer->scope, ir::MemoryScope::Global);
}

TEST(LowerAttach, ConsumerOutsideTheAttachLoopIsRejected) {
  const int64_t M = 4, N = 5;
  Tensor A = te::placeholder({M, N}, f32, "A");
  Tensor P = te::compute(
      {M, N}, [&](Var i, Var j) { return A(i, j) + 1.0f; }, "P");
  Tensor Q = te::compute({M, N}, [&](Var i, Var j) { return P(i, j) * 2.0f; }, "Q", {"q0", "q1"});
  Tensor C = te::compute(
      {M, N}, [&](Var i, Var j) { return P(i, j) + Q(i, j); }, "C");
  schedule::Schedule s({C});
  s.compute_at(P, Q, "q0");
  expect_schedule_error(
      [&] {
        lower(s, {A, C}, "f");
      },
      "P", "q0", "stage 'C' reads 'P' outside loop 'q0' of stage 'Q'");
}

TEST(LowerAttach, SiblingAttachedAtAnOuterLoopIsRejected) {
  // S (attached at C.i) reads E, which is attached deeper, at C.j: E would come too late.
  const int64_t M = 3, N = 4;
  Tensor A = te::placeholder({M, N}, f32, "A");
  Tensor E = te::compute({M, N}, [&](Var i, Var j) { return A(i, j) * 2.0f; }, "E", {"e0", "e1"});
  ir::IterVar k = te::reduce_axis(N, "k");
  Tensor S = te::compute({M}, [&](Var i) { return te::sum(E(i, k), {k}); }, "S", {"s0"});
  Tensor C = te::compute({M, N}, [&](Var i, Var j) { return E(i, j) / S(i); }, "C", {"i", "j"});
  schedule::Schedule s({C});
  s.compute_at(S, C, "i");
  s.compute_at(E, C, "j");
  expect_schedule_error([&] { lower(s, {A, C}, "f"); }, "E", "j", "stage 'S' reads 'E' outside");
}

TEST(LowerAttach, ArgumentsMustBeComputedAtTheRoot) {
  ScaledMatmul sm(3, 3, 3);
  schedule::Schedule s({sm.C});
  s.compute_at(sm.P, sm.C, "i");
  expect_schedule_error(
      [&] {
        lower(s, {sm.A, sm.B, sm.P, sm.C}, "f");
      },
      "P", "i", "must be computed at the root");
  expect_compile_error(
      [&] {
        lower(s, {sm.A, sm.C}, "f");
      },
      "reads tensor 'B', which is not among the function arguments");
  expect_compile_error(
      [&] {
        lower(s, {sm.A, sm.B}, "f");
      },
      "output tensor 'C' is not among the arguments");
  expect_compile_error([&] { lower(s, {sm.A, sm.B, sm.C, sm.A}, "f"); }, "listed twice");
}

TEST(LowerAttach, SymbolicExtent) {
  std::mt19937 rng(29);
  Var n("n");
  Tensor A = te::placeholder({n, 6}, f32, "A");
  Tensor P = te::compute({n, 6}, [&](Var i, Var j) { return A(i, j) * 2.0f; }, "P", {"p0", "p1"});
  ir::IterVar k = te::reduce_axis(6, "k");
  Tensor C = te::compute({n}, [&](Var i) { return te::sum(P(i, k), {k}); }, "C", {"i"});
  schedule::Schedule s({C});
  auto [io, ii] = s.split(C, "i", 4);
  s.compute_at(P, C, io);
  ir::PrimFunc f = lower(s, {A, C}, "symbolic");
  EXPECT_EQ(allocation_shape(f.body, "P"), (std::vector<int64_t>{4, 6})) << f;
  for (int64_t extent : {1, 4, 7, 13}) {
    Floats a = random_floats(extent * 6, rng), c(extent, 0.0f), want(extent, 0.0f);
    for (int64_t i = 0; i < extent; ++i)
      for (int64_t q = 0; q < 6; ++q) want[i] += a[i * 6 + q] * 2.0f;
    ir::Env env;
    env.bind(n, ir::Value::from_int(ir::DataType::Index(), extent));
    ir::run(f, {a.data(), c.data()}, env);
    expect_close(c, want, 1e-6f);
  }
}

}  // namespace
}  // namespace tessel::lower

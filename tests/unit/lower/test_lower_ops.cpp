// Whole operators with realistic schedules: blocked matmul with packing, conv2d NCHW with
// padding, softmax; each against a naive reference over several shapes.
#include <gtest/gtest.h>

#include "lower_test_util.h"

namespace tessel::lower {
namespace {

using namespace tessel::testing;

/// The blocked CPU matmul schedule: B packed as [N/16][K][16] (by cache_read with a layout
/// or by an explicit packing compute), C accumulated in a local tile, tiling, vectorization,
/// unrolling and a parallel outer loop.
void blocked_matmul(bool explicit_packing, int64_t M, int64_t N, int64_t K, std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message() << "M=" << M << " N=" << N << " K=" << K
                                    << " explicit_packing=" << explicit_packing);
  Tensor A = te::placeholder({M, K}, f32, "A");
  Tensor B = te::placeholder({K, N}, f32, "B");
  ir::IterVar k = te::reduce_axis(K, "k");
  Tensor Bp, C;
  if (explicit_packing) {
    const int64_t NB = (N + 15) / 16;
    Bp = te::compute({NB, K, 16},
                     [&](Var jo, Var kk, Var ji) {
                       ir::Expr j = jo * 16 + ji;
                       return ir::select(j < N, B(kk, ir::min(j, ir::Expr(N - 1))), 0.0f);
                     },
                     "Bp", {"jo", "kk", "ji"});
    C = te::compute({M, N},
                    [&](Var i, Var j) { return te::sum(A(i, k) * Bp(j / 16, k, j % 16), {k}); },
                    "C", {"i", "j"});
  } else {
    C = te::compute({M, N}, [&](Var i, Var j) { return te::sum(A(i, k) * B(k, j), {k}); }, "C",
                    {"i", "j"});
  }
  schedule::Schedule s({C});
  if (!explicit_packing)
    Bp = s.cache_read(B, "global", {C}, schedule::Layout{}.split(1, 16).reorder({1, 0, 2}));
  const std::string inner = explicit_packing ? "ji" : "ax1.inner";
  s.vectorize(Bp, inner);
  Tensor CL = s.cache_write(C, "local");
  schedule::TileLoops t = s.tile(C, "i", "j", 4, 16);
  s.parallel(C, t.x_outer);
  s.vectorize(C, t.y_inner);
  s.compute_at(CL, C, t.y_outer);
  auto [ko, ki] = s.split(CL, "k", 4);
  s.reorder(CL, {ko, ki, "i", "j"});
  s.unroll(CL, ki);
  s.vectorize(CL, "j");
  ir::PrimFunc f = lower(s, {A, B, C}, "blocked_matmul");
  // Regions are clamped to the tensor when they are constant (a single tile).
  EXPECT_EQ(allocation_shape(f.body, "C.local"),
            (std::vector<int64_t>{std::min<int64_t>(4, M), std::min<int64_t>(16, N)}))
      << f;
  EXPECT_EQ(find_nodes<ir::AllocateNode>(f.body)[1]->buffer->scope, ir::MemoryScope::Local);
  EXPECT_EQ(loops_of_kind(f.body, ir::ForKind::Parallel), std::vector<std::string>{"i.outer"});
  EXPECT_EQ(loops_of_kind(f.body, ir::ForKind::Unrolled), std::vector<std::string>{"k.inner"});
  Floats a = random_floats(M * K, rng), b = random_floats(K * N, rng), c(M * N, 0.0f);
  run_func(f, {&a, &b, &c});
  expect_close(c, matmul_ref(a, b, M, N, K));
}

TEST(LowerOps, BlockedMatmulWithPackingByLayout) {
  std::mt19937 rng(40);
  blocked_matmul(false, 64, 64, 32, rng);
  blocked_matmul(false, 37, 50, 19, rng);
  blocked_matmul(false, 1, 1, 1, rng);
  for (int trial = 0; trial < 3; ++trial) {
    auto e = random_extents(rng, 3, 70);
    blocked_matmul(false, e[0], e[1], e[2], rng);
  }
}

TEST(LowerOps, BlockedMatmulWithExplicitPackingCompute) {
  std::mt19937 rng(41);
  blocked_matmul(true, 32, 48, 16, rng);
  blocked_matmul(true, 13, 33, 7, rng);
}

/// Y[n][o][y][x] = sum_{c, ry, rx} Pad[n][c][y + ry][x + rx] * W[o][c][ry][rx], with Pad the
/// input padded by one on each side (a compute with select; indices clamped so that the
/// unused arm of the select stays in bounds).
TEST(LowerOps, Conv2dNchw3x3Pad1) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 3; ++trial) {
    auto e = random_extents(rng, 5, 9);
    const int64_t N = e[0] % 2 + 1, CI = e[1] % 4 + 1, CO = e[2], H = e[3], W = e[4];
    SCOPED_TRACE(::testing::Message() << N << "x" << CI << "x" << H << "x" << W << " -> " << CO);
    Tensor X = te::placeholder({N, CI, H, W}, f32, "X");
    Tensor Wt = te::placeholder({CO, CI, 3, 3}, f32, "W");
    auto clamp = [](ir::Expr v, int64_t hi) {
      return ir::min(ir::max(v, ir::Expr(0)), ir::Expr(hi));
    };
    Tensor Pad = te::compute({N, CI, H + 2, W + 2},
                             [&](Var n, Var c, Var h, Var w) {
                               ir::Expr inside = h >= 1 && h <= H && w >= 1 && w <= W;
                               return ir::select(
                                   inside, X(n, c, clamp(h - 1, H - 1), clamp(w - 1, W - 1)), 0.0f);
                             },
                             "Pad", {"pn", "pc", "ph", "pw"});
    ir::IterVar rc = te::reduce_axis(CI, "rc"), ry = te::reduce_axis(3, "ry"),
                rx = te::reduce_axis(3, "rx");
    Tensor Y = te::compute(
        {N, CO, H, W},
        [&](Var n, Var o, Var y, Var x) {
          return te::sum(Pad(n, rc, y + ry.var, x + rx.var) * Wt(o, rc, ry, rx), {rc, ry, rx});
        },
        "Y", {"n", "o", "y", "x"});
    schedule::Schedule s({Y});
    Tensor YL = s.cache_write(Y, "local");
    auto [yo, yi] = s.split(Y, "y", 2);
    auto [xo, xi] = s.split(Y, "x", 4);
    s.reorder(Y, {"n", yo, xo, "o", yi, xi});
    s.vectorize(Y, xi);
    s.compute_at(YL, Y, "o");
    s.reorder(YL, {"rc", "ry", "rx", "y", "x"});
    s.unroll(YL, "rx");
    s.compute_at(Pad, Y, xo);
    ir::PrimFunc f = lower(s, {X, Wt, Y}, "conv2d");
    EXPECT_EQ(
        allocation_shape(f.body, "Pad"),
        (std::vector<int64_t>{1, CI, std::min<int64_t>(4, H + 2), std::min<int64_t>(6, W + 2)}))
        << f;
    EXPECT_EQ(allocation_shape(f.body, "Y.local"),
              (std::vector<int64_t>{1, 1, std::min<int64_t>(2, H), std::min<int64_t>(4, W)}))
        << f;

    Floats x = random_floats(N * CI * H * W, rng), w = random_floats(CO * CI * 9, rng);
    Floats y(N * CO * H * W, 0.0f), want(y.size(), 0.0f);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t o = 0; o < CO; ++o)
        for (int64_t r = 0; r < H; ++r)
          for (int64_t q = 0; q < W; ++q) {
            float acc = 0.0f;
            for (int64_t c = 0; c < CI; ++c)
              for (int64_t dy = 0; dy < 3; ++dy)
                for (int64_t dx = 0; dx < 3; ++dx) {
                  int64_t hy = r + dy - 1, wx = q + dx - 1;
                  if (hy < 0 || hy >= H || wx < 0 || wx >= W) continue;
                  acc += x[((n * CI + c) * H + hy) * W + wx] * w[((o * CI + c) * 3 + dy) * 3 + dx];
                }
            want[((n * CO + o) * H + r) * W + q] = acc;
          }
    run_func(f, {&x, &w, &y});
    expect_close(y, want, 1e-4f);
  }
}

/// Softmax over rows: max, exp, sum, divide; the four stages share the row loop.
TEST(LowerOps, SoftmaxWithStagesAtTheRowLoop) {
  std::mt19937 rng(43);
  for (int trial = 0; trial < 4; ++trial) {
    auto e = random_extents(rng, 2, 30);
    const int64_t M = e[0], N = e[1];
    Tensor X = te::placeholder({M, N}, f32, "X");
    ir::IterVar k = te::reduce_axis(N, "k");
    Tensor Mx = te::compute({M}, [&](Var i) { return te::max_reduce(X(i, k), {k}); }, "Mx", {"mi"});
    Tensor E = te::compute({M, N}, [&](Var i, Var j) { return ir::exp(X(i, j) - Mx(i)); }, "E",
                           {"ei", "ej"});
    ir::IterVar k2 = te::reduce_axis(N, "k2");
    Tensor S = te::compute({M}, [&](Var i) { return te::sum(E(i, k2), {k2}); }, "S", {"si"});
    Tensor O = te::compute({M, N}, [&](Var i, Var j) { return E(i, j) / S(i); }, "O", {"i", "j"});
    schedule::Schedule s({O});
    s.compute_at(Mx, O, "i");
    s.compute_at(E, O, "i");
    s.compute_at(S, O, "i");
    auto [jo, ji] = s.split(O, "j", 8);
    s.vectorize(O, ji);
    s.parallel(O, "i");
    s.split(E, "ej", 8);
    ir::PrimFunc f = lower(s, {X, O}, "softmax");
    EXPECT_EQ(allocation_shape(f.body, "E"), (std::vector<int64_t>{1, N})) << f;
    EXPECT_EQ(allocation_shape(f.body, "Mx"), std::vector<int64_t>{1}) << f;
    Floats x = random_floats(M * N, rng), o(M * N, 0.0f), want(M * N);
    for (int64_t i = 0; i < M; ++i) {
      float mx = -INFINITY, total = 0.0f;
      for (int64_t j = 0; j < N; ++j) mx = std::fmax(mx, x[i * N + j]);
      for (int64_t j = 0; j < N; ++j) total += std::exp(x[i * N + j] - mx);
      for (int64_t j = 0; j < N; ++j) want[i * N + j] = std::exp(x[i * N + j] - mx) / total;
    }
    run_func(f, {&x, &o});
    expect_close(o, want, 1e-5f);
  }
}

TEST(LowerOps, ChoicesBetweenReadsByPositionBecomeBranches) {
  // A Concat of three inputs: which one holds position i is a comparison of indices, and
  // each arm reads memory, so the store becomes an if/else per arm (one load per element,
  // not three). A choice between an arm that reads memory and a constant (padding) stays a
  // select, as does one whose condition reads a value.
  Tensor A = te::placeholder({4}, f32, "A"), B = te::placeholder({3}, f32, "B");
  Tensor C = te::placeholder({5}, f32, "C");
  Tensor joined = te::compute(
      {12},
      [&](Var i) {
        return ir::select(i < 4, A(ir::min(i, ir::Expr(3))),
                          ir::select(i < 7, B(ir::min(ir::max(i - 4, ir::Expr(0)), ir::Expr(2))),
                                     C(ir::max(i - 7, ir::Expr(0)))));
      },
      "joined", {"i"});
  Tensor padded =
      te::compute({6}, [&](Var i) { return ir::select(i < 4, A(ir::min(i, ir::Expr(3))), 0.0f); },
                  "padded", {"i"});
  Tensor chosen = te::compute(
      {4}, [&](Var i) { return ir::select(A(i) < 0.0f, A(i), B(ir::min(i, ir::Expr(2)))); },
      "chosen", {"i"});
  schedule::Schedule s({joined, padded, chosen});
  ir::PrimFunc f = lower(s, {A, B, C, joined, padded, chosen}, "choices");
  EXPECT_EQ(find_nodes<ir::IfThenElseNode>(f.body).size(), 2u) << f;
  std::mt19937 rng(5);
  Floats a = random_floats(4, rng), b = random_floats(3, rng), c = random_floats(5, rng);
  Floats j(12), p(6), ch(4);
  run_func(f, {&a, &b, &c, &j, &p, &ch});
  Floats want_j = a, want_p = a, want_ch(4);
  want_j.insert(want_j.end(), b.begin(), b.end());
  want_j.insert(want_j.end(), c.begin(), c.end());
  want_p.insert(want_p.end(), {0.0f, 0.0f});
  for (size_t i = 0; i < 4; ++i) want_ch[i] = a[i] < 0 ? a[i] : b[std::min<size_t>(i, 2)];
  expect_close(j, want_j);
  expect_close(p, want_p);
  expect_close(ch, want_ch);
}

}  // namespace
}  // namespace tessel::lower

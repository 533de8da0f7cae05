// MatMul, Gemm and Einsum against naive loops: batch broadcasting, 1-D operands, the tuned
// 2-d float32 path with ragged shapes, transposes, alpha / beta / C broadcasting, einsum
// equations with ellipsis, diagonals and implicit outputs, and bad shapes.
#include <numeric>

#include "unit/ops_nn/nn_test_util.h"

namespace tessel::ops::testing {
namespace {

/// numpy matmul reference: a [..., M, K] x b [..., K, N] with 1-D promotion and batch
/// broadcasting; returns the output shape through `out_shape`.
std::vector<double> matmul_reference(const std::vector<double>& a, Shape as,
                                     const std::vector<double>& b, Shape bs, Shape& out_shape) {
  bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as.insert(as.begin(), 1);
  if (b_vec) bs.push_back(1);
  size_t rank = std::max(as.size(), bs.size());
  as.insert(as.begin(), rank - as.size(), 1);
  bs.insert(bs.begin(), rank - bs.size(), 1);
  Shape full(rank);
  for (size_t d = 0; d + 2 < rank; ++d) full[d] = std::max(as[d], bs[d]);
  int64_t m = as[rank - 2], k = as[rank - 1], n = bs[rank - 1];
  full[rank - 2] = m;
  full[rank - 1] = n;
  std::vector<double> out = generate<double>(full, [&](const Shape& o) {
    double sum = 0;
    for (int64_t t = 0; t < k; ++t) {
      Shape ai(o), bi(o);
      for (size_t d = 0; d + 2 < rank; ++d) {
        if (as[d] == 1) ai[d] = 0;
        if (bs[d] == 1) bi[d] = 0;
      }
      ai[rank - 1] = t;
      bi[rank - 2] = t;
      sum += a[ravel(ai, as)] * b[ravel(bi, bs)];
    }
    return sum;
  });
  out_shape.assign(full.begin(), full.end() - 2);
  if (!a_vec) out_shape.push_back(m);
  if (!b_vec) out_shape.push_back(n);
  return out;
}

std::vector<double> widen(const std::vector<float>& v) {
  return {v.begin(), v.end()};
}

struct MatmulCase {
  Shape a, b;
};

class MatMulShapes : public ::testing::TestWithParam<MatmulCase> {};

TEST_P(MatMulShapes, MatchesNumpySemantics) {
  auto [as, bs] = GetParam();
  std::vector<float> a = random_values<float>(as, 1), b = random_values<float>(bs, 2);
  NDArray x = array_of(as, a), y = array_of(bs, b);
  Shape out;
  std::vector<double> expected = matmul_reference(widen(a), as, widen(b), bs, out);
  expect_close(run_op("MatMul", {&x, &y}), out, expected);
}

INSTANTIATE_TEST_SUITE_P(Shapes, MatMulShapes,
                         ::testing::Values(MatmulCase{{7, 13}, {13, 19}},   // tuned, ragged tiles
                                           MatmulCase{{1, 5}, {5, 33}},     // tuned, one row
                                           MatmulCase{{40, 64}, {64, 48}},  // tuned, parallel
                                           MatmulCase{{2, 1, 3, 4},
                                                      {5, 4, 6}},           // batch broadcasting
                                           MatmulCase{{3, 2, 4}, {4, 5}},   // batch on one side
                                           MatmulCase{{3, 5, 7}, {7, 21}},  // vectorized, ragged
                                           // Batches with dimensions of 1 (channels-last
                                           // images [1, H, W, C]), first and in between.
                                           MatmulCase{{1, 3, 5, 7}, {7, 21}},
                                           MatmulCase{{3, 1, 5, 7}, {7, 18}},
                                           MatmulCase{{1, 1, 4, 6}, {6, 16}},
                                           // Both batched (attention): 4 x 16 register
                                           // tiles, ragged in rows and columns, and whole.
                                           MatmulCase{{2, 6, 9}, {2, 9, 37}},
                                           // Several column tiles and a ragged last one
                                           // peeled off, in parallel (work over 2^16).
                                           MatmulCase{{3, 13, 40}, {3, 40, 71}},
                                           MatmulCase{{3, 8, 16}, {3, 16, 64}},
                                           MatmulCase{{4}, {3, 4, 5}},      // 1-D left
                                           MatmulCase{{2, 3, 4}, {4}},      // 1-D right
                                           MatmulCase{{6}, {6}}));          // dot product

TEST(MatMul, Int32AndFloat64) {
  Shape as{2, 3, 4}, bs{4, 5};
  std::vector<int32_t> a = random_values<int32_t>(as, 3, -50, 50);
  std::vector<int32_t> b = random_values<int32_t>(bs, 4, -50, 50);
  NDArray x = array_of(as, a), y = array_of(bs, b);
  Shape out;
  std::vector<double> expected =
      matmul_reference({a.begin(), a.end()}, as, {b.begin(), b.end()}, bs, out);
  expect_array(run_op("MatMul", {&x, &y}), out,
               std::vector<int32_t>(expected.begin(), expected.end()));

  std::vector<double> ad = random_values<double>(as, 5), bd = random_values<double>(bs, 6);
  NDArray xd = array_of(as, ad), yd = array_of(bs, bd);
  expect_close<double>(run_op("MatMul", {&xd, &yd}), out, matmul_reference(ad, as, bd, bs, out),
                       1e-12);
}

TEST(MatMul, Float16AccumulatesInFloat32) {
  Shape as{3, 40}, bs{40, 4};
  std::vector<_Float16> a = random_values<_Float16>(as, 16), b = random_values<_Float16>(bs, 17);
  NDArray x = array_of(as, a), y = array_of(bs, b);
  Shape out;
  std::vector<double> expected =
      matmul_reference({a.begin(), a.end()}, as, {b.begin(), b.end()}, bs, out);
  expect_close<_Float16>(run_op("MatMul", {&x, &y}), out, expected, 2e-3);
}

TEST(MatMul, MismatchedShapesNameBoth) {
  NDArray x = array_of<float>({2, 3}, std::vector<float>(6)),
          y = array_of<float>({4, 5}, std::vector<float>(20));
  expect_compile_error([&] { run_op("MatMul", {&x, &y}); }, {"[2, 3]", "[4, 5]", "3 and 4"});
  NDArray p = array_of<float>({2, 3, 4}, std::vector<float>(24));
  NDArray q = array_of<float>({3, 4, 5}, std::vector<float>(60));
  expect_compile_error([&] { run_op("MatMul", {&p, &q}); }, {"cannot be broadcast"});
}

// ---- Gemm -------------------------------------------------------------------------------

struct GemmCase {
  bool trans_a, trans_b;
  Shape c;  ///< empty: no C
  double alpha, beta;
};

class GemmCases : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GemmCases, MatchesReference) {
  GemmCase p = GetParam();
  int64_t m = 5, k = 7, n = 11;
  Shape as = p.trans_a ? Shape{k, m} : Shape{m, k};
  Shape bs = p.trans_b ? Shape{n, k} : Shape{k, n};
  for (bool f64 : {false, true}) {
    std::vector<double> a = random_values<double>(as, 7), b = random_values<double>(bs, 8);
    std::vector<double> c = random_values<double>(p.c, 9);
    std::vector<double> expected = generate<double>({m, n}, [&](const Shape& o) {
      double sum = 0;
      for (int64_t t = 0; t < k; ++t) {
        double av = p.trans_a ? a[t * m + o[0]] : a[o[0] * k + t];
        double bv = p.trans_b ? b[o[1] * k + t] : b[t * n + o[1]];
        sum += av * bv;
      }
      double cv = 0;
      if (!p.c.empty() || p.c.size() != 0) {
        Shape ci;
        for (size_t d = 0; d < p.c.size(); ++d)
          ci.push_back(p.c[d] == 1 ? 0 : o[2 - p.c.size() + d]);
        cv = c[ravel(ci, p.c)];
      }
      return p.alpha * sum + (p.c.empty() ? 0 : p.beta * cv);
    });
    Attributes attrs = {{"transA", Attribute::of_int(p.trans_a)},
                        {"transB", Attribute::of_int(p.trans_b)},
                        {"alpha", Attribute::of_float(p.alpha)},
                        {"beta", Attribute::of_float(p.beta)}};
    if (f64) {
      NDArray x = array_of(as, a), y = array_of(bs, b), z = array_of(p.c, c);
      std::vector<const NDArray*> in = {&x, &y};
      if (!p.c.empty()) in.push_back(&z);
      expect_close<double>(run_op("Gemm", in, attrs), {m, n}, expected, 1e-12);
    } else {
      auto narrow = [](const std::vector<double>& v) {
        return std::vector<float>(v.begin(), v.end());
      };
      NDArray x = array_of(as, narrow(a)), y = array_of(bs, narrow(b)),
              z = array_of(p.c, narrow(c));
      std::vector<const NDArray*> in = {&x, &y};
      if (!p.c.empty()) in.push_back(&z);
      expect_close(run_op("Gemm", in, attrs), {m, n}, expected);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, GemmCases,
                         ::testing::Values(GemmCase{false, false, {}, 1, 1},
                                           GemmCase{true, false, {5, 11}, 1, 1},
                                           GemmCase{false, true, {11}, 0.5, 2},
                                           GemmCase{true, true, {5, 1}, 2, -1},
                                           GemmCase{false, false, {1}, 1, 0.25}));

TEST(Gemm, BadCShape) {
  NDArray a = array_of<float>({2, 3}, std::vector<float>(6)),
          b = array_of<float>({3, 4}, std::vector<float>(12));
  NDArray c = array_of<float>({3}, std::vector<float>(3));
  expect_compile_error([&] { run_op("Gemm", {&a, &b, &c}); }, {"C [3]", "[2, 4]"});
}

// ---- Einsum -----------------------------------------------------------------------------

TEST(Einsum, BatchMatmulTransposeAndImplicitOutput) {
  Shape as{2, 3, 4}, bs{2, 4, 5};
  std::vector<float> a = random_values<float>(as, 10), b = random_values<float>(bs, 11);
  NDArray x = array_of(as, a), y = array_of(bs, b);
  Shape out;
  std::vector<double> expected = matmul_reference(widen(a), as, widen(b), bs, out);
  Attributes eq = {{"equation", Attribute::of_string("bij, bjk -> bik")}};
  expect_close(run_op("Einsum", {&x, &y}, eq), out, expected);
  // Implicit output: the labels used once, alphabetically: "ik" (b and j are summed).
  std::vector<double> summed = generate<double>({3, 5}, [&](const Shape& o) {
    return expected[o[0] * 5 + o[1]] + expected[15 + o[0] * 5 + o[1]];
  });
  expect_close(run_op("Einsum", {&x, &y}, {{"equation", Attribute::of_string("bij,bjk")}}), {3, 5},
               summed);
  // Transpose: implicit "ji" sorts to "ij", explicit keeps the order.
  Shape ms{3, 4};
  std::vector<float> mv = random_values<float>(ms, 12);
  NDArray mat = array_of(ms, mv);
  std::vector<double> transposed =
      generate<double>({4, 3}, [&](const Shape& o) { return mv[o[1] * 4 + o[0]]; });
  expect_close(run_op("Einsum", {&mat}, {{"equation", Attribute::of_string("ij->ji")}}), {4, 3},
               transposed);
  expect_close(run_op("Einsum", {&mat}, {{"equation", Attribute::of_string("ji")}}), {4, 3},
               transposed);
}

TEST(Einsum, EllipsisDiagonalTraceAndSums) {
  Shape s{2, 3, 3};
  std::vector<float> v = random_values<float>(s, 13);
  NDArray x = array_of(s, v);
  expect_close(
      run_op("Einsum", {&x}, {{"equation", Attribute::of_string("...ii->...i")}}), {2, 3},
      generate<double>({2, 3}, [&](const Shape& o) { return v[(o[0] * 3 + o[1]) * 3 + o[1]]; }));
  expect_close(run_op("Einsum", {&x}, {{"equation", Attribute::of_string("bii->b")}}), {2},
               generate<double>({2}, [&](const Shape& o) {
                 double t = 0;
                 for (int64_t i = 0; i < 3; ++i) t += v[(o[0] * 3 + i) * 3 + i];
                 return t;
               }));
  expect_close(run_op("Einsum", {&x}, {{"equation", Attribute::of_string("bij->")}}), {},
               {std::accumulate(v.begin(), v.end(), 0.0)});
  // Outer product with a broadcast ellipsis.
  Shape ps{3}, qs{2, 1, 4};
  std::vector<float> p = random_values<float>(ps, 14), q = random_values<float>(qs, 15);
  NDArray xp = array_of(ps, p), xq = array_of(qs, q);
  expect_close(run_op("Einsum", {&xp, &xq}, {{"equation", Attribute::of_string("i,...j->...ij")}}),
               {2, 1, 3, 4}, generate<double>({2, 1, 3, 4}, [&](const Shape& o) {
                 return double(p[o[2]]) * q[o[0] * 4 + o[3]];
               }));
}

TEST(Einsum, BadEquations) {
  NDArray x = array_of<float>({2, 3}, std::vector<float>(6));
  expect_compile_error(
      [&] {
        run_op("Einsum", {&x}, {{"equation", Attribute::of_string("ijk->i")}});
      },
      {"'ijk'", "[2, 3]"});
  expect_compile_error(
      [&] {
        run_op("Einsum", {&x, &x}, {{"equation", Attribute::of_string("ij,ij->k")}});
      },
      {"'k'"});
  NDArray y = array_of<float>({3, 3}, std::vector<float>(9));
  expect_compile_error(
      [&] {
        run_op("Einsum", {&x, &y}, {{"equation", Attribute::of_string("ij,ij->ij")}});
      },
      {"'i'", "2 and 3"});
}

}  // namespace
}  // namespace tessel::ops::testing

// Vector expressions through the JIT: contiguous loads/stores, arithmetic, select, casts,
// gathers (strided and arbitrary indices), permuted loads of aligned runs, clamped loads
// (plain where no clamp acts), scatters,
// broadcast loads and vector floor division, each checked against a scalar C++ loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "codegen_test_util.h"

namespace tessel::codegen::test {
namespace {

const DataType f32 = DataType::Float(32);
const DataType i32 = DataType::Int(32);

std::vector<float> iota_values(int64_t n, float scale, float offset) {
  std::vector<float> v(n);
  for (int64_t k = 0; k < n; ++k) v[k] = scale * static_cast<float>(k) + offset;
  return v;
}

class CodegenVectorLanes : public ::testing::TestWithParam<int> {};

TEST_P(CodegenVectorLanes, ArithmeticSelectAndFma) {
  const int lanes = GetParam();
  const int64_t n = 4 * lanes;
  Buffer A = buffer("A", f32, n), B = buffer("B", f32, n), C = buffer("C", f32, n),
         D = buffer("D", f32, n);
  Var v("v");
  Expr idx = ramp(v * lanes, lanes);
  Expr a = load(A, idx), b = load(B, idx);
  Stmt body = make_Seq({store(C, idx, a * b + make_Broadcast(1.0f, lanes)),
                        store(D, idx, select(a > b, a - b, b / a))});
  PrimFunc f{"vec_arith", {A, B, C, D}, loop(v, n / lanes, body)};
  auto av = iota_values(n, 0.25f, -3.0f), bv = iota_values(n, -0.5f, 5.0f);
  auto ta = array(av, f32), tb = array(bv, f32), tc = array(std::vector<float>(n), f32),
       td = array(std::vector<float>(n), f32);
  ASSERT_EQ(run(f, {&ta, &tb, &tc, &td}), 0);
  for (int64_t k = 0; k < n; ++k) {
    EXPECT_NEAR(values<float>(tc)[k], av[k] * bv[k] + 1.0f, 1e-5f);
    EXPECT_FLOAT_EQ(values<float>(td)[k], av[k] > bv[k] ? av[k] - bv[k] : bv[k] / av[k]);
  }
}

TEST_P(CodegenVectorLanes, CastsAndIntegerOps) {
  const int lanes = GetParam();
  const int64_t n = 3 * lanes;
  Buffer A = buffer("A", i32, n), F = buffer("F", f32, n), Q = buffer("Q", i32, n),
         R = buffer("R", i32, n), Back = buffer("Back", i32, n);
  Var v("v");
  Expr idx = ramp(v * lanes, lanes);
  Expr x = load(A, idx);
  Expr as_float = cast(f32.with_lanes(lanes), x);
  Stmt body = make_Seq({store(F, idx, as_float * 0.5f),
                        store(Q, idx, x / make_Broadcast(make_int(-3, i32), lanes)),
                        store(R, idx, x % make_Broadcast(make_int(4, i32), lanes)),
                        store(Back, idx, cast(i32.with_lanes(lanes), as_float * 0.5f))});
  PrimFunc f{"vec_int", {A, F, Q, R, Back}, loop(v, n / lanes, body)};
  std::vector<int32_t> a(n);
  for (int64_t k = 0; k < n; ++k) a[k] = static_cast<int32_t>(k * 7 % 23) - 11;
  auto ta = array(a, i32), tf = array(std::vector<float>(n), f32),
       tq = array(std::vector<int32_t>(n), i32), tr = array(std::vector<int32_t>(n), i32),
       tb = array(std::vector<int32_t>(n), i32);
  ASSERT_EQ(run(f, {&ta, &tf, &tq, &tr, &tb}), 0);
  for (int64_t k = 0; k < n; ++k) {
    EXPECT_FLOAT_EQ(values<float>(tf)[k], a[k] * 0.5f);
    int q = static_cast<int>(std::floor(a[k] / -3.0));
    EXPECT_EQ(values<int32_t>(tq)[k], q) << a[k];
    EXPECT_EQ(values<int32_t>(tr)[k], a[k] - static_cast<int>(std::floor(a[k] / 4.0)) * 4) << a[k];
    EXPECT_EQ(values<int32_t>(tb)[k], static_cast<int32_t>(a[k] * 0.5f));
  }
}

TEST_P(CodegenVectorLanes, StridedGatherAndScatter) {
  // C = transpose(A) for a lanes x 5 matrix: read a column (stride 5, a gather), write a
  // row; D = A written back through a scatter with stride 5.
  const int lanes = GetParam();
  const int64_t cols = 5, n = lanes * cols;
  Buffer A = buffer("A", f32, n), C = buffer("C", f32, n), D = buffer("D", f32, n);
  Var c("c");
  Expr column = make_Ramp(c, Expr(cols), lanes);
  Stmt body = make_Seq({store(C, ramp(c * lanes, lanes), load(A, column)),
                        store(D, column, load(A, column) + 1.0f)});
  PrimFunc f{"transpose", {A, C, D}, loop(c, cols, body)};
  auto av = iota_values(n, 1.0f, 0.0f);
  auto ta = array(av, f32), tc = array(std::vector<float>(n), f32),
       td = array(std::vector<float>(n), f32);
  ASSERT_EQ(run(f, {&ta, &tc, &td}), 0);
  for (int64_t r = 0; r < lanes; ++r)
    for (int64_t k = 0; k < cols; ++k) {
      EXPECT_EQ(values<float>(tc)[k * lanes + r], av[r * cols + k]);
      EXPECT_EQ(values<float>(td)[r * cols + k], av[r * cols + k] + 1.0f);
    }
}

TEST_P(CodegenVectorLanes, ArbitraryIndexGatherAndBroadcastLoad) {
  const int lanes = GetParam();
  const int64_t n = 2 * lanes;
  Buffer A = buffer("A", f32, 7), S = buffer("S", f32, 1), C = buffer("C", f32, n);
  Var v("v");
  // Indices (k * 3) % 7 of a vector of positions: an arbitrary permutation-like gather,
  // scaled by S[0] loaded once and broadcast (a ramp of stride 0).
  Expr positions = ramp(v * lanes, lanes);
  Expr index = (positions * make_Broadcast(Expr(int64_t{3}), lanes)) %
               make_Broadcast(Expr(int64_t{7}), lanes);
  Stmt body = store(C, positions,
                    load(A, index) * load(S, make_Ramp(Expr(int64_t{0}), Expr(int64_t{0}), lanes)));
  PrimFunc f{"gather", {A, S, C}, loop(v, n / lanes, body)};
  auto av = iota_values(7, 10.0f, 1.0f);
  auto ta = array(av, f32), ts = array(std::vector<float>{0.5f}, f32),
       tc = array(std::vector<float>(n), f32);
  ASSERT_EQ(run(f, {&ta, &ts, &tc}), 0);
  for (int64_t k = 0; k < n; ++k) EXPECT_EQ(values<float>(tc)[k], av[k * 3 % 7] * 0.5f);
}

TEST_P(CodegenVectorLanes, LanesInOneAlignedRunArePermutedLoads) {
  // Lane l reads element (l / 4) * 4 + 3 - l % 4 of its run of `lanes` (each group of 4
  // reversed), and element 1 of the run in every lane (a broadcast): one load of the run
  // and a permutation. The same with the buffer one element short of a whole number of
  // runs, where reading the run whole is not known to stay inside: a gather, same values.
  const int lanes = GetParam();
  for (int64_t size : {int64_t{3} * lanes, int64_t{3} * lanes - 1}) {
    int64_t runs = size / lanes;
    Buffer A = buffer("A", f32, size), C = buffer("C", f32, runs * lanes),
           D = buffer("D", f32, runs * lanes);
    Var v("v");
    Expr base = make_Broadcast(v * lanes, lanes), l = ramp(Expr(int64_t{0}), lanes);
    auto constant = [lanes](int64_t c) { return make_Broadcast(Expr(c), lanes); };
    Expr reversed = base + l / constant(4) * constant(4) + constant(3) - l % constant(4);
    Expr second = base + l / constant(lanes) + constant(1);
    Stmt body = make_Seq({store(C, ramp(v * lanes, lanes), load(A, reversed)),
                          store(D, ramp(v * lanes, lanes), load(A, second))});
    PrimFunc f{"permuted", {A, C, D}, loop(v, runs, body)};
    auto av = iota_values(size, 1.0f, 0.5f);
    auto ta = array(av, f32), tc = array(std::vector<float>(runs * lanes), f32),
         td = array(std::vector<float>(runs * lanes), f32);
    ASSERT_EQ(run(f, {&ta, &tc, &td}), 0);
    for (int64_t r = 0; r < runs; ++r)
      for (int64_t k = 0; k < lanes; ++k) {
        EXPECT_EQ(values<float>(tc)[r * lanes + k], av[r * lanes + k / 4 * 4 + 3 - k % 4])
            << "size " << size << " run " << r << " lane " << k;
        EXPECT_EQ(values<float>(td)[r * lanes + k], av[r * lanes + 1]) << size;
      }
  }
}

TEST_P(CodegenVectorLanes, ClampedLoadsReadPlainlyWhereNoClampActs) {
  // C[x] = A[clamp(x - 3, 0, n - 1)] for x in [0, n + lanes) in vectors (a padding stage's
  // read, shifted by 3 and clamped at both ends), and D[x] = A[min(x + 2, n - 1)]
  // (clamped above only): the vectors inside the row read plainly, those at the ends
  // gather behind a branch; every lane as the scalar loop computes it.
  const int lanes = GetParam();
  const int64_t n = 3 * lanes + 5, out = n + lanes - 5;
  const int64_t vectors = out / lanes;
  Buffer A = buffer("A", f32, n), C = buffer("C", f32, vectors * lanes),
         D = buffer("D", f32, vectors * lanes);
  Var v("v");
  auto constant = [lanes](int64_t c) { return make_Broadcast(Expr(c), lanes); };
  Expr x = ramp(v * lanes, lanes);
  Expr both = max(min(x - constant(3), constant(n - 1)), constant(0));
  Expr above = min(x + constant(2), constant(n - 1));
  Stmt body = make_Seq({store(C, x, load(A, both)), store(D, x, load(A, above))});
  PrimFunc f{"clamped", {A, C, D}, loop(v, vectors, body)};
  auto av = iota_values(n, 1.0f, 0.25f);
  auto ta = array(av, f32), tc = array(std::vector<float>(vectors * lanes), f32),
       td = array(std::vector<float>(vectors * lanes), f32);
  ASSERT_EQ(run(f, {&ta, &tc, &td}), 0);
  for (int64_t k = 0; k < vectors * lanes; ++k) {
    EXPECT_EQ(values<float>(tc)[k], av[std::clamp<int64_t>(k - 3, 0, n - 1)]) << k;
    EXPECT_EQ(values<float>(td)[k], av[std::min<int64_t>(k + 2, n - 1)]) << k;
  }
}

TEST_P(CodegenVectorLanes, BoolVectors) {
  const int lanes = GetParam();
  const int64_t n = 2 * lanes;
  Buffer A = buffer("A", f32, n), M = buffer("M", DataType::Bool(), n), C = buffer("C", f32, n);
  Var v("v");
  Expr idx = ramp(v * lanes, lanes);
  Stmt body = make_Seq({store(M, idx, load(A, idx) > make_Broadcast(0.0f, lanes)),
                        store(C, idx,
                              select(load(M, idx) && !(load(A, idx) > make_Broadcast(2.0f, lanes)),
                                     load(A, idx), make_Broadcast(-1.0f, lanes)))});
  PrimFunc f{"bools", {A, M, C}, loop(v, n / lanes, body)};
  auto av = iota_values(n, 0.5f, -2.0f);
  auto ta = array(av, f32), tm = array(std::vector<uint8_t>(n, 9), DataType::Bool()),
       tc = array(std::vector<float>(n), f32);
  ASSERT_EQ(run(f, {&ta, &tm, &tc}), 0);
  for (int64_t k = 0; k < n; ++k) {
    EXPECT_EQ(values<uint8_t>(tm)[k], av[k] > 0 ? 1 : 0);
    EXPECT_EQ(values<float>(tc)[k], av[k] > 0 && !(av[k] > 2) ? av[k] : -1.0f);
  }
}

INSTANTIATE_TEST_SUITE_P(Lanes, CodegenVectorLanes, ::testing::Values(4, 8, 16));

TEST(CodegenVector, RampOfInt32Index) {
  // An int32 ramp as index (sign-extended) and a vector loop with a remainder in scalar.
  const int64_t n = 19;
  Buffer A = buffer("A", f32, n), C = buffer("C", f32, n);
  Var v("v", i32), k("k");
  Stmt vec = loop(v, make_int(0, i32), make_int(2, i32),
                  store(C, make_Ramp(v * 8, make_int(1, i32), 8),
                        load(A, make_Ramp(v * 8, make_int(1, i32), 8)) * 2.0f));
  Stmt tail = loop(k, Expr(int64_t{16}), Expr(int64_t{3}), store(C, k, load(A, k) * 2.0f));
  PrimFunc f{"ramp32", {A, C}, make_Seq({vec, tail})};
  auto av = iota_values(n, 1.5f, -4.0f);
  auto ta = array(av, f32), tc = array(std::vector<float>(n), f32);
  ASSERT_EQ(run(f, {&ta, &tc}), 0);
  for (int64_t x = 0; x < n; ++x) EXPECT_EQ(values<float>(tc)[x], av[x] * 2.0f);
}

}  // namespace
}  // namespace tessel::codegen::test

// Cost-model features of loop IR: the access features of a matrix product's statement
// against the byte counts, strides and reuse worked out by hand, a tiled nest against the
// plain one, and the loop features' length and operation mix.
#include <gtest/gtest.h>

#include <cmath>

#include "autotune/access_features.h"
#include "autotune/features.h"

namespace tessel::autotune {
namespace {

using namespace ir;

const DataType f32 = DataType::Float(32);

struct Product {
  Buffer a, b, c;
  Var i{"i"}, j{"j"}, k{"k"};
  Stmt update;  // C[i, j] = C[i, j] + A[i, k] * B[k, j]
};

Product product(int64_t m, int64_t n, int64_t k) {
  Product p;
  p.a = Buffer::make("A", f32, {Expr(m), Expr(k)});
  p.b = Buffer::make("B", f32, {Expr(k), Expr(n)});
  p.c = Buffer::make("C", f32, {Expr(m), Expr(n)});
  Expr sum = make_Load(p.c, {p.i, p.j}) + make_Load(p.a, {p.i, p.k}) * make_Load(p.b, {p.k, p.j});
  p.update = make_Store(p.c, sum, {p.i, p.j});
  return p;
}

TEST(AccessFeatures, AMatrixProductsBytesStridesAndReuse) {
  // for i < 8, j < 16, k < 32: the store, then C, A and B read.
  Product p = product(8, 16, 32);
  std::vector<NestLoop> nest = {{p.i, 8}, {p.j, 16}, {p.k, 32}};
  std::vector<AccessFeatures> f = access_features(p.update.as<StoreNode>(), nest);
  ASSERT_EQ(f.size(), 4u);
  const AccessFeatures &store = f[0], &c = f[1], &a = f[2], &b = f[3];
  EXPECT_TRUE(store.is_store);
  EXPECT_FALSE(a.is_store);
  // C: 8 x 16 elements, one along k, reused over k (32 times), 4 accesses of one element
  // between reuses.
  for (const AccessFeatures* x : {&store, &c}) {
    EXPECT_EQ(x->unique_bytes, 8 * 16 * 4);
    EXPECT_EQ(x->inner_bytes, 4);
    EXPECT_EQ(x->stride, 0);
    EXPECT_EQ(x->reuse_count, 32);
    EXPECT_EQ(x->reuse_bytes, 4 * 4);
  }
  // A[i, k]: contiguous along k, reused over j: between reuses C's element twice, a row of A
  // and a column of B.
  EXPECT_EQ(a.unique_bytes, 8 * 32 * 4);
  EXPECT_EQ(a.inner_bytes, 32 * 4);
  EXPECT_EQ(a.stride, 1);
  EXPECT_EQ(a.reuse_count, 16);
  EXPECT_EQ(a.reuse_bytes, (1 + 1 + 32 + 32) * 4);
  // B[k, j]: a row of 16 apart along k, reused over i: all of B and a row of A and C between.
  EXPECT_EQ(b.unique_bytes, 32 * 16 * 4);
  EXPECT_EQ(b.stride, 16);
  EXPECT_EQ(b.reuse_count, 8);
  EXPECT_EQ(b.reuse_bytes, (16 + 16 + 32 + 32 * 16) * 4);
}

TEST(AccessFeatures, TilingShortensTheReuseDistanceOfTheSharedOperand) {
  // The same product with j split into 4 tiles of 4 outside i: B's elements come back after
  // a 32 x 4 tile of B instead of all of it.
  Product p = product(8, 16, 32);
  Var jo("jo"), ji("ji");
  Expr j = jo * 4 + ji;
  Stmt update = make_Store(
      p.c, make_Load(p.c, {p.i, j}) + make_Load(p.a, {p.i, p.k}) * make_Load(p.b, {p.k, j}),
      {p.i, j});
  std::vector<NestLoop> tiled = {{jo, 4}, {p.i, 8}, {ji, 4}, {p.k, 32}};
  std::vector<NestLoop> plain = {{p.i, 8}, {p.j, 16}, {p.k, 32}};
  AccessFeatures b_tiled = access_features(update.as<StoreNode>(), tiled)[3];
  AccessFeatures b_plain = access_features(p.update.as<StoreNode>(), plain)[3];
  EXPECT_EQ(b_tiled.reuse_count, 8);
  EXPECT_EQ(b_tiled.reuse_bytes, (4 + 4 + 32 + 32 * 4) * 4);
  EXPECT_LT(b_tiled.reuse_bytes, b_plain.reuse_bytes);
  EXPECT_EQ(b_tiled.unique_bytes, b_plain.unique_bytes);  // the same elements overall
}

TEST(AccessFeatures, NonLinearIndicesHaveAnUnknownStrideAndUnusedLoopsNoReuse) {
  // out[x] = in[x / 2] over x < 64: the stride along x is not a constant; the only loop
  // is used by both, so nothing is reused.
  Buffer in = Buffer::make("in", f32, {Expr(int64_t{32})});
  Buffer out = Buffer::make("out", f32, {Expr(int64_t{64})});
  Var x("x");
  Stmt copy = make_Store(out, make_Load(in, {x / 2}), {x});
  std::vector<AccessFeatures> f = access_features(copy.as<StoreNode>(), {{x, 64}});
  EXPECT_EQ(f[0].stride, 1);
  EXPECT_EQ(f[1].stride, kUnknownStride);
  EXPECT_EQ(f[1].reuse_count, 0);
  EXPECT_EQ(f[1].reuse_bytes, 0);
}

TEST(LoopFeatures, CountTheMainStatementsOperationsAndAccesses) {
  Product p = product(8, 16, 32);
  Stmt nest = make_For(
      p.i, Expr(int64_t{0}), Expr(int64_t{8}), ForKind::Parallel,
      make_For(p.j, Expr(int64_t{0}), Expr(int64_t{16}), ForKind::Serial,
               make_For(p.k, Expr(int64_t{0}), Expr(int64_t{32}), ForKind::Serial, p.update)));
  PrimFunc f{"product", {p.a, p.b, p.c}, nest};
  std::vector<float> features = loop_features(f);
  ASSERT_EQ(features.size(), kLoopFeatures);
  auto log_scale = [](double x) { return static_cast<float>(std::log2(1 + x)); };
  // After the 14 loop and function features: simple float operations (an add and a
  // multiply per iteration), divisions, calls, selects.
  EXPECT_FLOAT_EQ(features[14], log_scale(2 * 8 * 16 * 32));
  EXPECT_FLOAT_EQ(features[15], 0);
  EXPECT_FLOAT_EQ(features[16], 0);
  EXPECT_FLOAT_EQ(features[17], 0);
  // The store's slot: unique bytes, inner bytes, stride, reuse count, reuse bytes.
  EXPECT_FLOAT_EQ(features[18], log_scale(8 * 16 * 4));
  EXPECT_FLOAT_EQ(features[21], log_scale(32));
  // The first load slot holds the load touching the most bytes: B (2 KiB).
  EXPECT_FLOAT_EQ(features[23], log_scale(32 * 16 * 4));
  EXPECT_FLOAT_EQ(features[25], log_scale(16));
  // Last: the bytes all statements write.
  EXPECT_FLOAT_EQ(features.back(), log_scale(8 * 16 * 4));
}

}  // namespace
}  // namespace tessel::autotune

// Scalar loops through the JIT: float and integer arithmetic, floor division and modulo
// with negative operands, comparisons, casts, conditionals and let bindings, each checked
// against a plain C++ loop.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "codegen_test_util.h"

namespace tessel::codegen::test {
namespace {

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t floor_mod(int64_t a, int64_t b) {
  return a - floor_div(a, b) * b;
}

TEST(CodegenScalar, FloatMultiplyAdd) {
  const int64_t n = 37;
  DataType f32 = DataType::Float(32);
  Buffer A = buffer("A", f32, n), B = buffer("B", f32, n), C = buffer("C", f32, n);
  Var i("i");
  PrimFunc f{"fma_loop", {A, B, C}, loop(i, n, store(C, i, load(A, i) * load(B, i) + 2.5f))};
  std::vector<float> a(n), b(n);
  for (int k = 0; k < n; ++k) a[k] = 0.5f * k - 3.0f, b[k] = 1.0f / (k + 1);
  auto ta = array(a, f32), tb = array(b, f32), tc = array(std::vector<float>(n), f32);
  ASSERT_EQ(run(f, {&ta, &tb, &tc}), 0);
  std::vector<float> c = values<float>(tc);
  for (int k = 0; k < n; ++k) EXPECT_NEAR(c[k], a[k] * b[k] + 2.5f, 1e-6f * (1 + std::fabs(c[k])));
}

/// Checks A / B and A % B (floor semantics) for every pair of small operands, in `dtype`.
template <class T>
void check_floor_div_mod(DataType dtype) {
  std::vector<T> a, b;
  for (int x = -13; x <= 13; ++x)
    for (int y = -5; y <= 5; ++y)
      if (y != 0) a.push_back(static_cast<T>(x)), b.push_back(static_cast<T>(y));
  const int64_t n = static_cast<int64_t>(a.size());
  Buffer A = buffer("A", dtype, n), B = buffer("B", dtype, n);
  Buffer Q = buffer("Q", dtype, n), R = buffer("R", dtype, n);
  Var i("i");
  Stmt body =
      make_Seq({store(Q, i, load(A, i) / load(B, i)), store(R, i, load(A, i) % load(B, i))});
  PrimFunc f{"div_mod", {A, B, Q, R}, loop(i, n, body)};
  auto ta = array(a, dtype), tb = array(b, dtype);
  auto tq = array(std::vector<T>(n), dtype), tr = array(std::vector<T>(n), dtype);
  ASSERT_EQ(run(f, {&ta, &tb, &tq, &tr}), 0);
  std::vector<T> q = values<T>(tq), r = values<T>(tr);
  for (int64_t k = 0; k < n; ++k) {
    EXPECT_EQ(q[k], floor_div(a[k], b[k])) << a[k] << " / " << b[k];
    EXPECT_EQ(r[k], floor_mod(a[k], b[k])) << a[k] << " % " << b[k];
  }
}

TEST(CodegenScalar, FloorDivModInt32) {
  check_floor_div_mod<int32_t>(DataType::Int(32));
}
TEST(CodegenScalar, FloorDivModInt64) {
  check_floor_div_mod<int64_t>(DataType::Int(64));
}
TEST(CodegenScalar, FloorDivModInt8) {
  check_floor_div_mod<int8_t>(DataType::Int(8));
}

TEST(CodegenScalar, FloorDivModByConstants) {
  // Powers of two take the shift / mask fast path; the others the general one.
  const int64_t n = 41;
  DataType i64 = DataType::Index();
  std::vector<int64_t> divisors = {1, 2, 4, 8, 3, 7, -4, -3};
  Buffer A = buffer("A", i64, n);
  std::vector<Buffer> outs;
  std::vector<Stmt> stores;
  Var i("i");
  for (size_t d = 0; d < divisors.size(); ++d) {
    std::string suffix = std::to_string(d);
    outs.push_back(buffer(std::string("Q").append(suffix), i64, n));
    outs.push_back(buffer(std::string("R").append(suffix), i64, n));
    stores.push_back(store(outs[2 * d], i, load(A, i) / divisors[d]));
    stores.push_back(store(outs[2 * d + 1], i, load(A, i) % divisors[d]));
  }
  std::vector<Buffer> params{A};
  params.insert(params.end(), outs.begin(), outs.end());
  PrimFunc f{"div_const", params, loop(i, n, make_Seq(stores))};
  std::vector<int64_t> a(n);
  for (int k = 0; k < n; ++k) a[k] = k - 20;
  std::vector<runtime::NDArray> arrays;
  arrays.push_back(array(a, i64));
  for (size_t k = 0; k < outs.size(); ++k) arrays.push_back(array(std::vector<int64_t>(n), i64));
  std::vector<runtime::NDArray*> ptrs;
  for (auto& t : arrays) ptrs.push_back(&t);
  ASSERT_EQ(run(f, ptrs), 0);
  for (size_t d = 0; d < divisors.size(); ++d) {
    std::vector<int64_t> q = values<int64_t>(arrays[1 + 2 * d]),
                         r = values<int64_t>(arrays[2 + 2 * d]);
    for (int k = 0; k < n; ++k) {
      EXPECT_EQ(q[k], floor_div(a[k], divisors[d])) << a[k] << " / " << divisors[d];
      EXPECT_EQ(r[k], floor_mod(a[k], divisors[d])) << a[k] << " % " << divisors[d];
    }
  }
}

TEST(CodegenScalar, UnsignedDivModMinMax) {
  DataType u32 = DataType::UInt(32);
  std::vector<uint32_t> a = {0, 1, 7, 100, 4000000000u, 4294967295u};
  std::vector<uint32_t> b = {3, 4, 2, 7, 5, 4000000000u};
  const int64_t n = static_cast<int64_t>(a.size());
  Buffer A = buffer("A", u32, n), B = buffer("B", u32, n);
  Buffer Q = buffer("Q", u32, n), R = buffer("R", u32, n), Mn = buffer("Mn", u32, n),
         Mx = buffer("Mx", u32, n);
  Var i("i");
  Expr x = load(A, i), y = load(B, i);
  Stmt body = make_Seq(
      {store(Q, i, x / y), store(R, i, x % y), store(Mn, i, min(x, y)), store(Mx, i, max(x, y))});
  PrimFunc f{"unsigned_ops", {A, B, Q, R, Mn, Mx}, loop(i, n, body)};
  std::vector<runtime::NDArray> t;
  t.push_back(array(a, u32));
  t.push_back(array(b, u32));
  for (int k = 0; k < 4; ++k) t.push_back(array(std::vector<uint32_t>(n), u32));
  ASSERT_EQ(run(f, {&t[0], &t[1], &t[2], &t[3], &t[4], &t[5]}), 0);
  for (int64_t k = 0; k < n; ++k) {
    EXPECT_EQ(values<uint32_t>(t[2])[k], a[k] / b[k]);
    EXPECT_EQ(values<uint32_t>(t[3])[k], a[k] % b[k]);
    EXPECT_EQ(values<uint32_t>(t[4])[k], std::min(a[k], b[k]));
    EXPECT_EQ(values<uint32_t>(t[5])[k], std::max(a[k], b[k]));
  }
}

TEST(CodegenScalar, IntegerArithmeticWrapsAndMinMax) {
  DataType i32 = DataType::Int(32);
  std::vector<int32_t> a = {-7, 0, 5, std::numeric_limits<int32_t>::max(), -100};
  std::vector<int32_t> b = {3, -2, 5, 1, 99};
  const int64_t n = static_cast<int64_t>(a.size());
  Buffer A = buffer("A", i32, n), B = buffer("B", i32, n), C = buffer("C", i32, n),
         D = buffer("D", i32, n);
  Var i("i");
  Expr x = load(A, i), y = load(B, i);
  Stmt body = make_Seq({store(C, i, (x + y) * 3 - min(x, y)), store(D, i, max(x, y) - abs(x))});
  PrimFunc f{"int_ops", {A, B, C, D}, loop(i, n, body)};
  auto ta = array(a, i32), tb = array(b, i32), tc = array(std::vector<int32_t>(n), i32),
       td = array(std::vector<int32_t>(n), i32);
  ASSERT_EQ(run(f, {&ta, &tb, &tc, &td}), 0);
  for (int64_t k = 0; k < n; ++k) {
    uint32_t wrapped = (static_cast<uint32_t>(a[k]) + static_cast<uint32_t>(b[k])) * 3u -
                       static_cast<uint32_t>(std::min(a[k], b[k]));
    EXPECT_EQ(values<int32_t>(tc)[k], static_cast<int32_t>(wrapped));
    EXPECT_EQ(values<int32_t>(td)[k], std::max(a[k], b[k]) - std::abs(a[k]));
  }
}

TEST(CodegenScalar, FloatMinMaxAndComparisons) {
  DataType f32 = DataType::Float(32);
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a = {1.0f, -2.0f, 3.0f, nan, 0.5f};
  std::vector<float> b = {2.0f, -3.0f, 3.0f, 1.0f, nan};
  const int64_t n = static_cast<int64_t>(a.size());
  Buffer A = buffer("A", f32, n), B = buffer("B", f32, n);
  Buffer Mn = buffer("Mn", f32, n), Mx = buffer("Mx", f32, n);
  Buffer Cmp = buffer("Cmp", DataType::Int(32), n);
  Var i("i");
  Expr x = load(A, i), y = load(B, i);
  // Cmp packs the six comparisons into bits.
  Expr bits = cast(DataType::Int(32), x == y) + cast(DataType::Int(32), x != y) * 2 +
              cast(DataType::Int(32), x < y) * 4 + cast(DataType::Int(32), x <= y) * 8 +
              cast(DataType::Int(32), x > y) * 16 + cast(DataType::Int(32), x >= y) * 32;
  Stmt body = make_Seq({store(Mn, i, min(x, y)), store(Mx, i, max(x, y)), store(Cmp, i, bits)});
  PrimFunc f{"float_cmp", {A, B, Mn, Mx, Cmp}, loop(i, n, body)};
  auto ta = array(a, f32), tb = array(b, f32), tmn = array(std::vector<float>(n), f32),
       tmx = array(std::vector<float>(n), f32),
       tc = array(std::vector<int32_t>(n), DataType::Int(32));
  ASSERT_EQ(run(f, {&ta, &tb, &tmn, &tmx, &tc}), 0);
  for (int64_t k = 0; k < n; ++k) {
    // NaN-propagating: a NaN operand yields NaN.
    bool any_nan = std::isnan(a[k]) || std::isnan(b[k]);
    if (any_nan) {
      EXPECT_TRUE(std::isnan(values<float>(tmn)[k])) << a[k] << " vs " << b[k];
      EXPECT_TRUE(std::isnan(values<float>(tmx)[k])) << a[k] << " vs " << b[k];
    } else {
      EXPECT_EQ(values<float>(tmn)[k], std::fmin(a[k], b[k]));
      EXPECT_EQ(values<float>(tmx)[k], std::fmax(a[k], b[k]));
    }
    int expected = (a[k] == b[k]) + (a[k] != b[k]) * 2 + (a[k] < b[k]) * 4 + (a[k] <= b[k]) * 8 +
                   (a[k] > b[k]) * 16 + (a[k] >= b[k]) * 32;
    EXPECT_EQ(values<int32_t>(tc)[k], expected) << a[k] << " vs " << b[k];
  }
}

TEST(CodegenScalar, Casts) {
  DataType f32 = DataType::Float(32), i32 = DataType::Int(32);
  std::vector<float> a = {-2.75f, -0.5f, 0.0f, 1.5f, 300.25f, 1e6f};
  const int64_t n = static_cast<int64_t>(a.size());
  Buffer A = buffer("A", f32, n);
  Buffer ToInt = buffer("ToInt", i32, n), ToI8 = buffer("ToI8", DataType::Int(8), n),
         Back = buffer("Back", DataType::Float(64), n), U8 = buffer("U8", DataType::UInt(8), n),
         Flags = buffer("Flags", DataType::Bool(), n);
  Var i("i");
  Expr x = load(A, i);
  Expr as_int = cast(i32, x);
  Stmt body =
      make_Seq({store(ToInt, i, as_int), store(ToI8, i, cast(DataType::Int(8), as_int)),
                store(Back, i, cast(DataType::Float(64), as_int) + cast(DataType::Float(64), x)),
                store(U8, i, cast(DataType::UInt(8), cast(DataType::Int(8), as_int))),
                store(Flags, i, x > 0.0f)});
  PrimFunc f{"casts", {A, ToInt, ToI8, Back, U8, Flags}, loop(i, n, body)};
  auto ta = array(a, f32), t1 = array(std::vector<int32_t>(n), i32),
       t2 = array(std::vector<int8_t>(n), DataType::Int(8)),
       t3 = array(std::vector<double>(n), DataType::Float(64)),
       t4 = array(std::vector<uint8_t>(n), DataType::UInt(8)),
       t5 = array(std::vector<uint8_t>(n, 7), DataType::Bool());
  ASSERT_EQ(run(f, {&ta, &t1, &t2, &t3, &t4, &t5}), 0);
  for (int64_t k = 0; k < n; ++k) {
    int32_t truncated = static_cast<int32_t>(a[k]);
    EXPECT_EQ(values<int32_t>(t1)[k], truncated);
    EXPECT_EQ(values<int8_t>(t2)[k], static_cast<int8_t>(truncated));
    EXPECT_DOUBLE_EQ(values<double>(t3)[k], truncated + static_cast<double>(a[k]));
    EXPECT_EQ(values<uint8_t>(t4)[k], static_cast<uint8_t>(static_cast<int8_t>(truncated)));
    EXPECT_EQ(values<uint8_t>(t5)[k], a[k] > 0 ? 1 : 0);  // bool is one byte, 0 or 1
  }
}

TEST(CodegenScalar, IfThenElseLetAndSelect) {
  const int64_t n = 20;
  DataType f32 = DataType::Float(32);
  Buffer A = buffer("A", f32, n), C = buffer("C", f32, n), D = buffer("D", f32, n);
  Var i("i"), t("t", f32), u("u", f32);
  Stmt branch = make_IfThenElse(i % 3 == 0, store(C, i, load(A, i)), store(C, i, -load(A, i)));
  Stmt only_then = make_IfThenElse(i < 5, store(C, i, load(C, i) * 10.0f));
  Stmt let = make_LetStmt(t, load(A, i) * 2.0f,
                          store(D, i, make_Let(u, t + 1.0f, select(t > 0.0f, u * u, t))));
  PrimFunc f{"branches", {A, C, D}, loop(i, n, make_Seq({branch, only_then, let}))};
  std::vector<float> a(n);
  for (int k = 0; k < n; ++k) a[k] = k - 9.5f;
  auto ta = array(a, f32), tc = array(std::vector<float>(n), f32),
       td = array(std::vector<float>(n), f32);
  ASSERT_EQ(run(f, {&ta, &tc, &td}), 0);
  for (int k = 0; k < n; ++k) {
    float c = k % 3 == 0 ? a[k] : -a[k];
    if (k < 5) c *= 10.0f;
    float tv = a[k] * 2.0f;
    EXPECT_FLOAT_EQ(values<float>(tc)[k], c);
    EXPECT_FLOAT_EQ(values<float>(td)[k], tv > 0 ? (tv + 1) * (tv + 1) : tv);
  }
}

TEST(CodegenScalar, LoopBoundsAndInt32LoopVariable) {
  // A loop with a non-zero min and an int32 variable, nested in an int64 loop.
  DataType i32 = DataType::Int(32);
  Buffer C = buffer("C", i32, 40);
  Var i("i"), j("j", i32);
  Stmt inner = loop(j, make_int(3, i32), make_int(5, i32),
                    store(C, i * 8 + cast(DataType::Index(), j), j * 100 + cast(i32, i)));
  PrimFunc f{"bounds", {C}, loop(i, 5, inner)};
  auto tc = array(std::vector<int32_t>(40, -1), i32);
  ASSERT_EQ(run(f, {&tc}), 0);
  std::vector<int32_t> c = values<int32_t>(tc);
  for (int a = 0; a < 5; ++a)
    for (int b = 0; b < 8; ++b) EXPECT_EQ(c[a * 8 + b], b >= 3 ? b * 100 + a : -1) << a << "," << b;
}

}  // namespace
}  // namespace tessel::codegen::test

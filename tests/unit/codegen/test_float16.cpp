// 16-bit floats through the JIT: float16 and bfloat16 conversions (round to nearest even,
// NaN kept), arithmetic and intrinsics, against references computed in float / double.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "codegen_test_util.h"

namespace tessel::codegen::test {
namespace {

const DataType f32 = DataType::Float(32);
const DataType bf16 = DataType::BFloat(16);

uint32_t bits_of(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}
float float_of(uint32_t b) {
  float x;
  std::memcpy(&x, &b, 4);
  return x;
}

/// bfloat16 rounding of x, chosen between the two neighbouring bfloat16 values by
/// distance in double precision (ties to an even last bit; past the largest bfloat16 the
/// upper neighbour is 2^128, i.e. infinity).
float bfloat16_reference(float x) {
  if (std::isnan(x) || std::isinf(x)) return x;
  uint32_t truncated = bits_of(x) & 0xffff0000u;
  int exponent = static_cast<int>((truncated >> 23) & 0xff);
  double ulp = std::ldexp(1.0, (exponent == 0 ? 1 : exponent) - 127 - 7);
  double below = float_of(truncated);
  double above = below + std::copysign(ulp, static_cast<double>(x));
  double d_below = std::fabs(x - below), d_above = std::fabs(above - x);
  bool up = d_above < d_below || (d_above == d_below && (truncated & 0x10000u) != 0);
  double r = up ? above : below;
  if (std::fabs(r) >= 0x1p128) return std::copysign(std::numeric_limits<float>::infinity(), x);
  return static_cast<float>(r);
}

float bfloat16_bits_to_float(uint16_t b) {
  return float_of(static_cast<uint32_t>(b) << 16);
}

TEST(CodegenBFloat16, ConversionRoundsToNearestEven) {
  std::vector<float> x = {1.0f,
                          1.0f + 0x1p-8f,      // tie: stays 1 (even)
                          1.0f + 3 * 0x1p-8f,  // tie: rounds up to the even neighbour
                          1.0f + 0x1p-8f + 0x1p-20f,
                          -2.5f,
                          3.14159265f,
                          65504.0f,
                          1e-30f,
                          3.0e38f,
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN(),
                          0.0f,
                          -0.0f,
                          0x1.fffffep127f,  // rounds up to +inf
                          1.00390625f};
  const int64_t n = static_cast<int64_t>(x.size());
  Buffer A = buffer("A", f32, n), H = buffer("H", bf16, n), Back = buffer("Back", f32, n);
  Var i("i");
  Stmt body =
      make_Seq({store(H, i, cast(bf16, load(A, i))), store(Back, i, cast(f32, load(H, i)))});
  PrimFunc f{"to_bf16", {A, H, Back}, loop(i, n, body)};
  auto ta = array(x, f32), th = array(std::vector<uint16_t>(n), bf16),
       tb = array(std::vector<float>(n), f32);
  ASSERT_EQ(run(f, {&ta, &th, &tb}), 0);
  for (int64_t k = 0; k < n; ++k) {
    float expected = bfloat16_reference(x[k]);
    float got = bfloat16_bits_to_float(values<uint16_t>(th)[k]);
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(got)) << x[k];
      EXPECT_TRUE(std::isnan(values<float>(tb)[k]));
      continue;
    }
    EXPECT_EQ(bits_of(got), bits_of(expected)) << std::hexfloat << x[k];
    EXPECT_EQ(bits_of(values<float>(tb)[k]), bits_of(expected)) << std::hexfloat << x[k];
  }
}

TEST(CodegenBFloat16, VectorArithmeticAndIntrinsics) {
  // In bfloat16: M = A * B + C (each operation rounded to bfloat16) and E = exp(A).
  const int lanes = 16;
  const int64_t n = 4 * lanes;
  Buffer A = buffer("A", bf16, n), B = buffer("B", bf16, n), C = buffer("C", bf16, n);
  Buffer M = buffer("M", bf16, n), E = buffer("E", bf16, n);
  Var v("v");
  Expr idx = ramp(v * lanes, lanes);
  Expr x = load(A, idx);
  Stmt body = make_Seq({store(M, idx, x * load(B, idx) + load(C, idx)), store(E, idx, exp(x))});
  PrimFunc f{"bf16_ops", {A, B, C, M, E}, loop(v, n / lanes, body)};
  auto to_bits = [](float x) {
    return static_cast<uint16_t>(bits_of(bfloat16_reference(x)) >> 16);
  };
  std::vector<uint16_t> a(n), b(n), c(n);
  for (int64_t k = 0; k < n; ++k) {
    a[k] = to_bits(0.137f * k - 4.0f);
    b[k] = to_bits(1.5f - 0.031f * k);
    c[k] = to_bits(0.25f * (k % 7));
  }
  auto ta = array(a, bf16), tb = array(b, bf16), tc = array(c, bf16),
       tm = array(std::vector<uint16_t>(n), bf16), te = array(std::vector<uint16_t>(n), bf16);
  ASSERT_EQ(run(f, {&ta, &tb, &tc, &tm, &te}), 0);
  for (int64_t k = 0; k < n; ++k) {
    float fa = bfloat16_bits_to_float(a[k]), fb = bfloat16_bits_to_float(b[k]);
    float fc = bfloat16_bits_to_float(c[k]);
    float product = bfloat16_reference(fa * fb);  // exact in float, then rounded
    EXPECT_EQ(bfloat16_bits_to_float(values<uint16_t>(tm)[k]), bfloat16_reference(product + fc))
        << fa << " * " << fb << " + " << fc;
    double e = std::exp(static_cast<double>(fa));
    EXPECT_NEAR(bfloat16_bits_to_float(values<uint16_t>(te)[k]), e, e * 0x1p-8) << fa;
  }
}

TEST(CodegenFloat16, ConversionsArithmeticAndIntrinsics) {
  const DataType f16 = DataType::Float(16);
  const int lanes = 8;
  const int64_t n = 2 * lanes;
  Buffer A = buffer("A", f32, n), H = buffer("H", f16, n), T = buffer("T", f32, n);
  Var v("v");
  Expr idx = ramp(v * lanes, lanes);
  Expr h = cast(f16.with_lanes(lanes), load(A, idx));
  Stmt body = make_Seq({store(H, idx, h * h), store(T, idx, cast(f32.with_lanes(lanes), tanh(h)))});
  PrimFunc f{"f16_ops", {A, H, T}, loop(v, n / lanes, body)};
  std::vector<float> a(n);
  for (int64_t k = 0; k < n; ++k) a[k] = 0.3f * k - 2.2f;
  auto ta = array(a, f32), th = array(std::vector<uint16_t>(n), f16),
       tt = array(std::vector<float>(n), f32);
  ASSERT_EQ(run(f, {&ta, &th, &tt}), 0);
  for (int64_t k = 0; k < n; ++k) {
    _Float16 x = static_cast<_Float16>(a[k]);
    _Float16 square = x * x;
    _Float16 got;
    std::memcpy(&got, &values<uint16_t>(th)[k], 2);
    EXPECT_EQ(static_cast<float>(got), static_cast<float>(square)) << a[k];
    double t = std::tanh(static_cast<double>(x));
    EXPECT_NEAR(values<float>(tt)[k], t, std::fabs(t) * 0x1p-10 + 1e-7) << a[k];
  }
}

}  // namespace
}  // namespace tessel::codegen::test

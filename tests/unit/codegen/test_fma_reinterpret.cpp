// fma and reinterpret compiled as scalar and vector loops, against std::fma and bit copies:
// on this machine's CPU, and on x86-64 without FMA3, where fma is a multiply and an add.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "codegen_test_util.h"
#include "target/parse_target.h"

namespace tessel::codegen::test {
namespace {

/// D = fma(A, B, C) as a scalar loop ("scalar") and a 4-lane vector loop ("vector").
JitModule compile_fma(DataType t, int64_t n, const target::Target& target) {
  Buffer A = buffer("A", t, n), B = buffer("B", t, n), C = buffer("C", t, n), S = buffer("S", t, n),
         V = buffer("V", t, n);
  auto body = [&](const Buffer& dst, const Expr& i) {
    return store(dst, i, fma(load(A, i), load(B, i), load(C, i)));
  };
  Var i("i"), v("v");
  JitOptions options;
  options.target = target;
  return JitModule({PrimFunc{"scalar", {A, B, C, S}, loop(i, n, body(S, i))},
                    PrimFunc{"vector", {A, B, C, V}, loop(v, n / 4, body(V, ramp(v * 4, 4)))}},
                   options);
}

/// a*b + c with the product rounded first (volatile: the compiler may not contract it).
template <class T>
T multiply_add(T a, T b, T c) {
  volatile T product = a * b;
  return product + c;
}

/// Products whose separate rounding would differ from a fused one, plus random triples:
/// rounded once where `target` has a fused multiply-add, else the product first.
template <class T>
void check_fma(const target::Target& target) {
  bool fused = target.arch != target::Arch::X86_64 || target.has("fma");
  DataType t = DataType::Float(8 * sizeof(T));
  constexpr T eps = std::numeric_limits<T>::epsilon();
  std::vector<T> a = {1 + eps, T(0.1), 3, std::numeric_limits<T>::infinity()};
  std::vector<T> b = {1 - eps, 10, T(1) / 3, 0};
  std::vector<T> c = {-1, -1, -1, 1};
  std::mt19937 rng(7);
  std::uniform_real_distribution<T> u(-4, 4);
  while (a.size() < 64) a.push_back(u(rng)), b.push_back(u(rng)), c.push_back(u(rng));
  const int64_t n = static_cast<int64_t>(a.size());
  JitModule module = compile_fma(t, n, target);
  auto ta = array(a, t), tb = array(b, t), tc = array(c, t), ts = array(std::vector<T>(n), t),
       tv = array(std::vector<T>(n), t);
  ASSERT_EQ(call(module, "scalar", {&ta, &tb, &tc, &ts}), 0);
  ASSERT_EQ(call(module, "vector", {&ta, &tb, &tc, &tv}), 0);
  for (int64_t k = 0; k < n; ++k) {
    T expected = fused ? std::fma(a[k], b[k], c[k]) : multiply_add(a[k], b[k], c[k]);
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(values<T>(ts)[k]) && std::isnan(values<T>(tv)[k])) << k;
      continue;
    }
    EXPECT_EQ(values<T>(ts)[k], expected) << "fma(" << a[k] << ", " << b[k] << ", " << c[k] << ")";
    EXPECT_EQ(values<T>(tv)[k], expected) << "fma(" << a[k] << ", " << b[k] << ", " << c[k] << ")";
  }
  EXPECT_EQ(values<T>(ts)[0], fused ? -eps * eps : T(0));
}

TEST(CodegenFma, RoundsOnceInEachWidth) {
  check_fma<float>(target::host());
  check_fma<double>(target::host());
}

TEST(CodegenFma, IsAMultiplyAndAnAddOnX86_64WithoutFma) {
  if (target::host().triple.rfind("x86_64", 0) != 0) GTEST_SKIP() << "x86-64 only";
  target::Target baseline = target::parse_target("llvm -mcpu=x86-64");
  check_fma<float>(baseline);
  check_fma<double>(baseline);
}

TEST(CodegenReinterpret, KeepsTheBitsBothWays) {
  DataType f32 = DataType::Float(32, 8), i32 = DataType::Int(32, 8);
  std::vector<float> x = {
      0.0f,         -0.0f, 1.0f, -2.5f, 1e-40f, 3.4e38f, std::numeric_limits<float>::infinity(),
      std::nanf("")};
  Buffer F = buffer("F", f32.element(), 8), I = buffer("I", i32.element(), 8),
         G = buffer("G", f32.element(), 8);
  Var v("v");
  Expr idx = ramp(v * 8, 8);
  Stmt body = make_Seq({store(I, idx, reinterpret(load(F, idx))),
                        store(G, idx, reinterpret(load(I, idx) + make_int(1, i32)))});
  auto tf = array(x, f32.element()), ti = array(std::vector<int32_t>(8), i32.element()),
       tg = array(std::vector<float>(8), f32.element());
  ASSERT_EQ(run(PrimFunc{"bits", {F, I, G}, loop(v, 1, body)}, {&tf, &ti, &tg}), 0);
  for (int k = 0; k < 8; ++k) {
    int32_t bits;
    std::memcpy(&bits, &x[k], sizeof bits);
    EXPECT_EQ(values<int32_t>(ti)[k], bits) << x[k];
    float next;
    int32_t next_bits = bits + 1;
    std::memcpy(&next, &next_bits, sizeof next);
    float got = values<float>(tg)[k];
    EXPECT_EQ(std::memcmp(&got, &next, sizeof got), 0) << x[k];
  }
}

}  // namespace
}  // namespace tessel::codegen::test

// Float intrinsics of float32 and float64 (the trigonometric and hyperbolic functions,
// fmod, and the older exp ... trunc) compiled as scalar and vector loops, against the C++
// standard library over sweeps plus IEEE special values; is_nan / is_inf; NaN and
// infinity handling that fast-math flags must not break.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "codegen/llvm/codegen_llvm.h"
#include "codegen_test_util.h"
#include "support/error.h"

namespace tessel::codegen::test {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Compiles Out[i] = op(A[i] (, B[i])) as a scalar loop ("scalar") and a `lanes`-wide
/// vector loop ("vector") over n elements (n a multiple of lanes).
JitModule compile_call(Intrinsic op, DataType in, DataType out, int64_t n, int lanes) {
  bool binary = intrinsic_arity(op) == 2;
  Buffer A = buffer("A", in, n), B = buffer("B", in, n), S = buffer("S", out, n),
         V = buffer("V", out, n);
  auto body = [&](const Buffer& dst, const Expr& i) {
    std::vector<Expr> args = {load(A, i)};
    if (binary) args.push_back(load(B, i));
    return store(dst, i, make_Call(op, args));
  };
  Var i("i"), v("v");
  Stmt scalar = loop(i, n, body(S, i));
  Stmt vector = loop(v, n / lanes, body(V, ramp(v * lanes, lanes)));
  return JitModule({PrimFunc{"scalar", {A, B, S}, scalar}, PrimFunc{"vector", {A, B, V}, vector}});
}

/// Runs op over a and b (b ignored for unary ops) in element type T (float or double);
/// returns the scalar and the vector results.
template <class T, class R = T>
std::pair<std::vector<R>, std::vector<R>> run_call(Intrinsic op, std::vector<T> a, std::vector<T> b,
                                                   DataType out) {
  DataType in = DataType::Float(8 * sizeof(T));
  const int lanes = 64 / static_cast<int>(sizeof(T)) / 2;  // 8 x float, 4 x double
  while (a.size() % lanes) a.push_back(T(1));
  b.resize(a.size(), T(1));
  const int64_t n = static_cast<int64_t>(a.size());
  JitModule module = compile_call(op, in, out, n, lanes);
  auto ta = array(a, in), tb = array(b, in), ts = array(std::vector<R>(n), out),
       tv = array(std::vector<R>(n), out);
  EXPECT_EQ(call(module, "scalar", {&ta, &tb, &ts}), 0);
  EXPECT_EQ(call(module, "vector", {&ta, &tb, &tv}), 0);
  return {values<R>(ts), values<R>(tv)};
}

struct MathCase {
  const char* name;
  Intrinsic op;
  double (*reference)(double, double);
  double lo, hi;    // sweep of the first argument
  double blo, bhi;  // sweep of the second (binary ops)
  double tol32;     // relative tolerance of float32 results
};

std::ostream& operator<<(std::ostream& os, const MathCase& c) {
  return os << c.name;
}

#define UNARY_REF(fn) [](double x, double) { return fn(x); }
double sigmoid_ref(double x, double) {
  return 1.0 / (1.0 + std::exp(-x));
}
double rsqrt_ref(double x, double) {
  return 1.0 / std::sqrt(x);
}

const MathCase kCases[] = {
    {"sin", Intrinsic::sin, UNARY_REF(std::sin), -20, 20, 0, 0, 2.5e-7},
    {"cos", Intrinsic::cos, UNARY_REF(std::cos), -20, 20, 0, 0, 2.5e-7},
    {"tan", Intrinsic::tan, UNARY_REF(std::tan), -10, 10, 0, 0, 2.5e-7},
    {"asin", Intrinsic::asin, UNARY_REF(std::asin), -1.2, 1.2, 0, 0, 2.5e-7},
    {"acos", Intrinsic::acos, UNARY_REF(std::acos), -1.2, 1.2, 0, 0, 2.5e-7},
    {"atan", Intrinsic::atan, UNARY_REF(std::atan), -50, 50, 0, 0, 2.5e-7},
    {"sinh", Intrinsic::sinh, UNARY_REF(std::sinh), -100, 100, 0, 0, 2.5e-7},
    {"cosh", Intrinsic::cosh, UNARY_REF(std::cosh), -100, 100, 0, 0, 2.5e-7},
    {"asinh", Intrinsic::asinh, UNARY_REF(std::asinh), -100, 100, 0, 0, 2.5e-7},
    {"acosh", Intrinsic::acosh, UNARY_REF(std::acosh), 0, 100, 0, 0, 2.5e-7},
    {"atanh", Intrinsic::atanh, UNARY_REF(std::atanh), -1.2, 1.2, 0, 0, 2.5e-7},
    {"exp", Intrinsic::exp, UNARY_REF(std::exp), -110, 110, 0, 0, 4e-7},
    {"log", Intrinsic::log, UNARY_REF(std::log), -10, 1e4, 0, 0, 4e-7},
    {"tanh", Intrinsic::tanh, UNARY_REF(std::tanh), -12, 12, 0, 0, 5e-7},
    {"sigmoid", Intrinsic::sigmoid, sigmoid_ref, -110, 40, 0, 0, 5e-7},
    {"erf", Intrinsic::erf, UNARY_REF(std::erf), -6, 6, 0, 0, 5e-7},
    {"sqrt", Intrinsic::sqrt, UNARY_REF(std::sqrt), -1, 1e6, 0, 0, 6e-8},
    {"rsqrt", Intrinsic::rsqrt, rsqrt_ref, 0, 1e6, 0, 0, 1.2e-7},
    {"abs", Intrinsic::abs, UNARY_REF(std::fabs), -100, 100, 0, 0, 0},
    {"floor", Intrinsic::floor, UNARY_REF(std::floor), -100, 100, 0, 0, 0},
    {"ceil", Intrinsic::ceil, UNARY_REF(std::ceil), -100, 100, 0, 0, 0},
    {"round", Intrinsic::round, UNARY_REF(std::nearbyint), -100, 100, 0, 0, 0},
    {"trunc", Intrinsic::trunc, UNARY_REF(std::trunc), -100, 100, 0, 0, 0},
    {"pow", Intrinsic::pow, [](double a, double b) { return std::pow(a, b); }, 0, 8, -5, 5, 2e-7},
    {"fmod", Intrinsic::fmod, [](double a, double b) { return std::fmod(a, b); }, -50, 50, -7, 7,
     0},
};
#undef UNARY_REF

/// A sweep of the case's range, every special value paired with every other, and the
/// half-way points of round.
std::pair<std::vector<double>, std::vector<double>> case_inputs(const MathCase& c) {
  std::vector<double> a, b;
  const int n = 4001;
  bool binary = intrinsic_arity(c.op) == 2;
  for (int k = 0; k < n; ++k) {
    a.push_back(c.lo + (c.hi - c.lo) * k / (n - 1));
    b.push_back(binary ? c.blo + (c.bhi - c.blo) * ((k * 7919) % n) / (n - 1) : 0.0);
  }
  const double specials[] = {0.0, -0.0,  1.0,    -1.0, 0.5,   -0.5, 1.5,   -2.5,
                             3.0, 1e-30, -1e-30, 1e30, -1e30, kInf, -kInf, kNaN};
  for (double x : specials)
    for (double y : specials) {
      a.push_back(x);
      b.push_back(binary ? y : 0.0);
    }
  return {a, b};
}

/// Checks one result against the double-precision reference rounded to T.
template <class T>
void check(const MathCase& c, T a, T b, T got, double tol, const char* form) {
  double ref = c.reference(static_cast<double>(a), static_cast<double>(b));
  auto where = [&] {
    std::ostringstream s;
    s << c.name << "(" << a;
    if (intrinsic_arity(c.op) == 2) s << ", " << b;
    s << ") " << form << " = " << got << ", expected " << ref;
    return s.str();
  };
  if (std::isnan(ref)) {
    EXPECT_TRUE(std::isnan(got)) << where();
    return;
  }
  T ref_t = static_cast<T>(ref);
  if (std::isinf(ref_t) || tol == 0) {
    EXPECT_EQ(got, ref_t) << where();
    if (ref_t == 0) {
      EXPECT_EQ(std::signbit(got), std::signbit(ref_t)) << where();
    }
    return;
  }
  // A result below the normal range may flush to zero.
  if (got == T(0) && std::fabs(ref) < std::numeric_limits<T>::min()) return;
  EXPECT_LE(std::fabs(static_cast<double>(got) - ref),
            tol * std::fabs(ref) + std::numeric_limits<T>::denorm_min())
      << where();
}

template <class T>
void check_case(const MathCase& c, double tol) {
  auto [a64, b64] = case_inputs(c);
  std::vector<T> a(a64.begin(), a64.end()), b(b64.begin(), b64.end());
  auto [s, v] = run_call<T>(c.op, a, b, DataType::Float(8 * sizeof(T)));
  const ::testing::TestResult* result =
      ::testing::UnitTest::GetInstance()->current_test_info()->result();
  for (size_t k = 0; k < a.size(); ++k) {
    check<T>(c, a[k], b[k], s[k], tol, "scalar");
    check<T>(c, a[k], b[k], v[k], tol, "vector");
    if (result->total_part_count() > 20) FAIL() << "too many mismatches";
  }
}

class FloatIntrinsic : public ::testing::TestWithParam<MathCase> {};

TEST_P(FloatIntrinsic, Float32MatchesStd) {
  check_case<float>(GetParam(), GetParam().tol32);
}

TEST_P(FloatIntrinsic, Float64MatchesStd) {
  // float64 math is libm's (or exact): within a few ulp of the double reference.
  check_case<double>(GetParam(), GetParam().tol32 == 0 ? 0 : 1e-15);
}

INSTANTIATE_TEST_SUITE_P(All, FloatIntrinsic, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(FloatIntrinsicSpecial, TranscendentalsGiveIeeeSpecialValues) {
  // Exact expectations from C's Annex F, for the float32 approximations and float64 libm.
  struct Special {
    Intrinsic op;
    double x, expected;
  };
  const Special cases[] = {
      {Intrinsic::exp, -kInf, 0.0},    {Intrinsic::exp, kInf, kInf},
      {Intrinsic::exp, kNaN, kNaN},    {Intrinsic::exp, 0.0, 1.0},
      {Intrinsic::exp, 1000.0, kInf},  {Intrinsic::exp, -1000.0, 0.0},
      {Intrinsic::log, 0.0, -kInf},    {Intrinsic::log, -0.0, -kInf},
      {Intrinsic::log, -1.0, kNaN},    {Intrinsic::log, kInf, kInf},
      {Intrinsic::log, -kInf, kNaN},   {Intrinsic::log, kNaN, kNaN},
      {Intrinsic::log, 1.0, 0.0},      {Intrinsic::tanh, kInf, 1.0},
      {Intrinsic::tanh, -kInf, -1.0},  {Intrinsic::tanh, kNaN, kNaN},
      {Intrinsic::tanh, 1000.0, 1.0},  {Intrinsic::sigmoid, -kInf, 0.0},
      {Intrinsic::sigmoid, kInf, 1.0}, {Intrinsic::sigmoid, kNaN, kNaN},
      {Intrinsic::sigmoid, 0.0, 0.5},  {Intrinsic::erf, kInf, 1.0},
      {Intrinsic::erf, -kInf, -1.0},   {Intrinsic::erf, kNaN, kNaN},
      {Intrinsic::erf, 0.0, 0.0},      {Intrinsic::sqrt, -1.0, kNaN},
      {Intrinsic::sqrt, kInf, kInf},   {Intrinsic::rsqrt, 0.0, kInf},
      {Intrinsic::sin, kInf, kNaN},    {Intrinsic::cos, kNaN, kNaN},
      {Intrinsic::asin, 2.0, kNaN},    {Intrinsic::acosh, 0.5, kNaN},
      {Intrinsic::atanh, 1.0, kInf},   {Intrinsic::atanh, -1.0, -kInf},
      {Intrinsic::cosh, -kInf, kInf},  {Intrinsic::sinh, -kInf, -kInf},
      {Intrinsic::atan, kInf, M_PI_2}, {Intrinsic::floor, -kInf, -kInf},
      {Intrinsic::round, 2.5, 2.0},    {Intrinsic::round, -0.5, -0.0},
      {Intrinsic::round, 3.5, 4.0},    {Intrinsic::trunc, kNaN, kNaN},
  };
  auto expect_same = [](double expected, double got, const Special& c, const char* type) {
    if (std::isnan(expected))
      EXPECT_TRUE(std::isnan(got)) << intrinsic_name(c.op) << "(" << c.x << ") " << type;
    else if (std::isinf(expected) || expected == 0)
      EXPECT_EQ(got, expected) << intrinsic_name(c.op) << "(" << c.x << ") " << type;
    else
      EXPECT_NEAR(got, expected, std::fabs(expected) * 1e-7)
          << intrinsic_name(c.op) << "(" << c.x << ") " << type;
  };
  for (const Special& c : cases) {
    auto [s32, v32] = run_call<float>(c.op, {static_cast<float>(c.x)}, {}, DataType::Float(32));
    auto [s64, v64] = run_call<double>(c.op, {c.x}, {}, DataType::Float(64));
    double expected32 = static_cast<float>(c.expected);
    expect_same(expected32, s32[0], c, "float32 scalar");
    expect_same(expected32, v32[0], c, "float32 vector");
    expect_same(c.expected, s64[0], c, "float64 scalar");
    expect_same(c.expected, v64[0], c, "float64 vector");
  }
  // exp(100) overflows float32 to +inf (not a wrapped-around exponent).
  auto [s, v] =
      run_call<float>(Intrinsic::exp, {100.0f, 88.8f, 89.0f, -104.0f}, {}, DataType::Float(32));
  EXPECT_EQ(s[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(v[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(s[1], std::numeric_limits<float>::infinity());
  EXPECT_EQ(s[2], std::numeric_limits<float>::infinity());
  EXPECT_EQ(s[3], 0.0f);
}

template <class T>
void check_float_tests() {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  std::vector<T> x = {0,
                      -0.0,
                      1,
                      -1,
                      inf,
                      -inf,
                      nan,
                      -nan,
                      std::numeric_limits<T>::max(),
                      std::numeric_limits<T>::denorm_min()};
  DataType b = DataType::Bool();
  auto [ns, nv] = run_call<T, uint8_t>(Intrinsic::is_nan, x, {}, b);
  auto [is, iv] = run_call<T, uint8_t>(Intrinsic::is_inf, x, {}, b);
  for (size_t k = 0; k < x.size(); ++k) {
    EXPECT_EQ(ns[k], std::isnan(x[k]) ? 1 : 0) << "is_nan(" << x[k] << ")";
    EXPECT_EQ(nv[k], std::isnan(x[k]) ? 1 : 0) << "is_nan(" << x[k] << ") vector";
    EXPECT_EQ(is[k], std::isinf(x[k]) ? 1 : 0) << "is_inf(" << x[k] << ")";
    EXPECT_EQ(iv[k], std::isinf(x[k]) ? 1 : 0) << "is_inf(" << x[k] << ") vector";
  }
}

TEST(FloatTestIntrinsics, IsNanAndIsInfFloat32) {
  check_float_tests<float>();
}
TEST(FloatTestIntrinsics, IsNanAndIsInfFloat64) {
  check_float_tests<double>();
}

TEST(FloatTestIntrinsics, NanComparisonsSurviveOptimisation) {
  // x != x, x == inf and x < -inf after the -O3 pipeline with the default fast-math flags.
  DataType f32 = DataType::Float(32), b = DataType::Bool();
  const int64_t n = 16;
  Buffer X = buffer("X", f32, n), Ne = buffer("Ne", b, n), Inf = buffer("Inf", b, n),
         Big = buffer("Big", b, n);
  Var i("i");
  Expr x = load(X, i);
  Stmt body = make_Seq({store(Ne, i, x != x),
                        store(Inf, i, x == make_float(std::numeric_limits<double>::infinity())),
                        store(Big, i, x > make_float(3.0e38) || x < make_float(-3.0e38))});
  PrimFunc f{"nan_cmp", {X, Ne, Inf, Big}, loop(i, n, body)};
  std::vector<float> xs = {0,        1,     -1,     INFINITY, -INFINITY, NAN, -NAN, FLT_MAX,
                           -FLT_MAX, 3e38f, 1e-45f, 2,        3,         4,   5,    6};
  auto tx = array(xs, f32), tn = array(std::vector<uint8_t>(n), b),
       ti = array(std::vector<uint8_t>(n), b), tb = array(std::vector<uint8_t>(n), b);
  ASSERT_EQ(run(f, {&tx, &tn, &ti, &tb}), 0);
  for (int64_t k = 0; k < n; ++k) {
    float v = xs[k];
    EXPECT_EQ(values<uint8_t>(tn)[k], v != v ? 1 : 0) << v;
    EXPECT_EQ(values<uint8_t>(ti)[k], v == INFINITY ? 1 : 0) << v;
    EXPECT_EQ(values<uint8_t>(tb)[k], (v > 3.0e38f || v < -3.0e38f) ? 1 : 0) << v;
  }
}

TEST(FloatIntrinsicFloat16, NewIntrinsicsComputeInFloat32) {
  // float16 arguments: computed in float32 and rounded to half.
  DataType f16 = DataType::Float(16);
  std::vector<_Float16> x = {0.5, -0.25, 1.0, 2.0, -3.0, 0.0, 10.0, -0.75};
  for (Intrinsic op : {Intrinsic::sin, Intrinsic::atan, Intrinsic::cosh, Intrinsic::exp}) {
    Buffer A = buffer("A", f16, 8), B = buffer("B", f16, 8);
    Var v("v");
    PrimFunc f{
        "half", {A, B}, loop(v, 1, store(B, ramp(v, 8), make_Call(op, {load(A, ramp(v, 8))})))};
    auto ta = array(x, f16), tb = array(std::vector<_Float16>(8), f16);
    ASSERT_EQ(run(f, {&ta, &tb}), 0);
    for (int k = 0; k < 8; ++k) {
      double ref = 0;
      double a = static_cast<double>(x[k]);
      switch (op) {
        case Intrinsic::sin:
          ref = std::sin(a);
          break;
        case Intrinsic::atan:
          ref = std::atan(a);
          break;
        case Intrinsic::cosh:
          ref = std::cosh(a);
          break;
        default:
          ref = std::exp(a);
          break;
      }
      // Within half an ulp of float16 (2^-11 relative) plus the float32 error.
      EXPECT_NEAR(static_cast<double>(values<_Float16>(tb)[k]), ref, std::fabs(ref) * 4.9e-4)
          << intrinsic_name(op) << "(" << a << ")";
    }
  }
}

TEST(FloatTestIntrinsics, SixteenBitFloatsCompareTestAndCast) {
  // bfloat16 and float16 values exactly representable in both: 1, -2.5, 0, 3, inf, NaN...
  const std::vector<float> xs = {1.0f, -2.5f, 0.0f, 3.0f, INFINITY, -INFINITY, NAN, 96.0f};
  for (DataType t : {DataType::BFloat(16), DataType::Float(16)}) {
    std::vector<uint16_t> bits;
    for (float x : xs) {
      if (t.code == TypeCode::BFloat) {
        uint32_t w;
        std::memcpy(&w, &x, sizeof w);
        bits.push_back(static_cast<uint16_t>(w >> 16));
      } else {
        _Float16 h = static_cast<_Float16>(x);
        uint16_t w;
        std::memcpy(&w, &h, sizeof w);
        bits.push_back(w);
      }
    }
    DataType b = DataType::Bool(), i32 = DataType::Int(32);
    Buffer X = buffer("X", t, 8), Nan = buffer("Nan", b, 8), Inf = buffer("Inf", b, 8),
           Gt = buffer("Gt", b, 8), Ne = buffer("Ne", b, 8), I = buffer("I", i32, 8),
           M = buffer("M", t, 8);
    for (int lanes : {1, 8}) {
      Var v("v");
      Expr idx = lanes == 1 ? Expr(v) : ramp(v, 8);
      Expr x = load(X, idx), one = make_Broadcast(make_float(1.0, t), 8);
      if (lanes == 1) one = make_float(1.0, t);
      // Finite lanes are cast to int32 (the others give 0 through a select).
      Expr finite = !(is_nan(x) || is_inf(x));
      Stmt body = make_Seq({store(Nan, idx, is_nan(x)), store(Inf, idx, is_inf(x)),
                            store(Gt, idx, x > one), store(Ne, idx, x != x),
                            store(I, idx, select(finite, cast(i32, x), make_int(0, i32))),
                            store(M, idx, max(x, one))});
      PrimFunc f{"half_tests", {X, Nan, Inf, Gt, Ne, I, M}, loop(v, lanes == 1 ? 8 : 1, body)};
      auto tx = array(bits, t), tn = array(std::vector<uint8_t>(8), b),
           ti = array(std::vector<uint8_t>(8), b), tg = array(std::vector<uint8_t>(8), b),
           te = array(std::vector<uint8_t>(8), b), tint = array(std::vector<int32_t>(8), i32),
           tm = array(std::vector<uint16_t>(8), t);
      ASSERT_EQ(run(f, {&tx, &tn, &ti, &tg, &te, &tint, &tm}), 0);
      for (int k = 0; k < 8; ++k) {
        float x = xs[k];
        SCOPED_TRACE(t.to_string() + " " + std::to_string(x) + " lanes " + std::to_string(lanes));
        EXPECT_EQ(values<uint8_t>(tn)[k], std::isnan(x) ? 1 : 0);
        EXPECT_EQ(values<uint8_t>(ti)[k], std::isinf(x) ? 1 : 0);
        EXPECT_EQ(values<uint8_t>(tg)[k], x > 1.0f ? 1 : 0);
        EXPECT_EQ(values<uint8_t>(te)[k], x != x ? 1 : 0);
        EXPECT_EQ(values<int32_t>(tint)[k], std::isfinite(x) ? static_cast<int32_t>(x) : 0);
        uint16_t m = values<uint16_t>(tm)[k];
        uint16_t expected = std::isnan(x) ? m : (x > 1.0f ? bits[k] : bits[0]);
        if (std::isnan(x))  // a NaN of either format: exponent all ones, mantissa non-zero
          EXPECT_TRUE(t.code == TypeCode::BFloat ? (m & 0x7f80) == 0x7f80 && (m & 0x7f)
                                                 : (m & 0x7c00) == 0x7c00 && (m & 0x3ff));
        else
          EXPECT_EQ(m, expected);
      }
    }
  }
}

TEST(FloatMinMax, VectorFormsStayVectors) {
  // NaN-propagating min / max are vector llvm.minimum / maximum (float16 through float32),
  // which x86 lowers to minps / maxps plus a blend: no per-lane code.
  for (DataType t : {DataType::Float(16), DataType::Float(32), DataType::Float(64)}) {
    Buffer A = buffer("A", t, 64), B = buffer("B", t, 64), C = buffer("C", t, 64);
    Var v("v");
    Expr idx = ramp(v * 8, 8);
    PrimFunc f{"vec_min_max",
               {A, B, C},
               loop(v, 8, store(C, idx, max(min(load(A, idx), load(B, idx)), load(A, idx))))};
    std::string ir = emit_llvm_ir({f});
    std::string suffix = t.bits == 64 ? "v8f64" : "v8f32";
    EXPECT_NE(ir.find("@llvm.maximum." + suffix), std::string::npos) << t.to_string() << ir;
    EXPECT_NE(ir.find("@llvm.minimum." + suffix), std::string::npos) << t.to_string();
    std::string assembly = emit_assembly({f});
    EXPECT_EQ(assembly.find("call"), std::string::npos) << t.to_string() << assembly;
  }
}

TEST(FloatIntrinsicLibm, KernelsMayNotTakeTheNameOfALibmFunction) {
  // A kernel named "exp" would be the target of the libm calls of float64 exp.
  DataType f64 = DataType::Float(64);
  Buffer A = buffer("A", f64, 4);
  Var i("i");
  PrimFunc f{"exp", {A}, loop(i, 4, store(A, i, exp(load(A, i))))};
  try {
    JitModule module({f});
    ADD_FAILURE() << "a kernel named exp compiled";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("C math library"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tessel::codegen::test

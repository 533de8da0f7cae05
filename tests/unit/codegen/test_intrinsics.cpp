// Math intrinsics, scalar and vector, against the C++ standard library evaluated in
// double precision over dense sweeps plus special values (0, subnormals, +-inf, NaN).
// The tolerances are the documented accuracies of tir/expand_math.h.
#include <gtest/gtest.h>

#include <cfenv>
#include <cfloat>
#include <cmath>
#include <limits>
#include <sstream>

#include "codegen/llvm/codegen_llvm.h"
#include "codegen_test_util.h"
#include "target/parse_target.h"

namespace tessel::codegen::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

double sigmoid_ref(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}
double rsqrt_ref(double x) {
  return 1.0 / std::sqrt(x);
}

struct UnaryCase {
  const char* name;
  Intrinsic op;
  double (*reference)(double);
  double lo, hi;        // sweep range
  bool log_spaced;      // sweep exp(u) for u in [lo, hi] instead
  double relative_tol;  // allowed |got - ref| / |ref| (plus one subnormal ulp)
};

std::ostream& operator<<(std::ostream& os, const UnaryCase& c) {
  return os << c.name;
}

/// Sweep points plus special values, padded to a multiple of 16.
std::vector<float> inputs(const UnaryCase& c) {
  const int n = 1 << 17;
  std::vector<float> x;
  for (int k = 0; k < n; ++k) {
    double u = c.lo + (c.hi - c.lo) * k / (n - 1);
    x.push_back(static_cast<float>(c.log_spaced ? std::exp(u) : u));
  }
  for (float s : {0.0f, -0.0f, FLT_MIN, -FLT_MIN, FLT_TRUE_MIN, 1e-40f, -1e-40f, 1.0f, -1.0f, 0.5f,
                  -0.5f, 2.5f, -2.5f, FLT_MAX, -FLT_MAX, kInf, -kInf, kNaN})
    x.push_back(s);
  while (x.size() % 16) x.push_back(1.0f);
  return x;
}

/// Compiles Out = op(In) as a scalar loop and as a `lanes`-wide vector loop.
JitModule compile_unary(Intrinsic op, DataType element, int64_t n, int lanes,
                        const target::Target& target = target::host()) {
  Buffer In = buffer("In", element, n), Scalar = buffer("S", element, n),
         Vector = buffer("V", element, n);
  Var i("i"), v("v");
  Stmt scalar = loop(i, n, store(Scalar, i, make_Call(op, {load(In, i)})));
  Expr idx = ramp(v * lanes, lanes);
  Stmt vector = loop(v, n / lanes, store(Vector, idx, make_Call(op, {load(In, idx)})));
  JitOptions options;
  options.target = target;
  return JitModule(
      {PrimFunc{"scalar", {In, Scalar}, scalar}, PrimFunc{"vector", {In, Vector}, vector}},
      options);
}

/// Checks got against the double reference; returns the relative error of a finite case.
void check_value(const UnaryCase& c, float x, float got, const char* form, double& max_rel) {
  double ref = c.reference(static_cast<double>(x));
  if (std::isnan(ref)) {
    EXPECT_TRUE(std::isnan(got)) << c.name << "(" << x << ") " << form << " = " << got;
    return;
  }
  float ref_f = static_cast<float>(ref);
  if (std::isinf(ref_f)) {
    EXPECT_EQ(got, ref_f) << c.name << "(" << x << ") " << form;
    return;
  }
  // A result below the normal range may flush to zero.
  if (got == 0.0f && std::fabs(ref) < FLT_MIN) return;
  double err = std::fabs(static_cast<double>(got) - ref);
  if (std::fabs(ref) >= FLT_MIN) max_rel = std::max(max_rel, err / std::fabs(ref));
  EXPECT_LE(err, c.relative_tol * std::fabs(ref) + FLT_TRUE_MIN)
      << c.name << "(" << std::hexfloat << x << ") " << form << " = " << got << ", expected "
      << ref;
}

/// Runs the sweep of case `c` with `lanes`-wide vectors compiled for `target`.
void check_sweep(const UnaryCase& c, int lanes, const target::Target& target) {
  DataType f32 = DataType::Float(32);
  std::vector<float> x = inputs(c);
  const int64_t n = static_cast<int64_t>(x.size());
  JitModule module = compile_unary(c.op, f32, n, lanes, target);
  auto tin = array(x, f32), ts = array(std::vector<float>(n), f32),
       tv = array(std::vector<float>(n), f32);
  ASSERT_EQ(call(module, "scalar", {&tin, &ts}), 0);
  ASSERT_EQ(call(module, "vector", {&tin, &tv}), 0);
  std::vector<float> s = values<float>(ts), v = values<float>(tv);
  double max_rel = 0;
  const ::testing::TestResult* result =
      ::testing::UnitTest::GetInstance()->current_test_info()->result();
  int parts_before = result->total_part_count();
  for (int64_t k = 0; k < n; ++k) {
    check_value(c, x[k], s[k], "scalar", max_rel);
    check_value(c, x[k], v[k], "vector", max_rel);
    if (result->total_part_count() > parts_before + 20) FAIL() << "too many mismatches";
  }
  std::ostringstream error;
  error << std::scientific << max_rel;
  ::testing::Test::RecordProperty(std::string("max_relative_error_") + c.name, error.str());
}

class IntrinsicF32 : public ::testing::TestWithParam<std::tuple<UnaryCase, int>> {};

TEST_P(IntrinsicF32, MatchesStdOverSweep) {
  check_sweep(std::get<0>(GetParam()), std::get<1>(GetParam()), target::host());
}

const UnaryCase kF32Cases[] = {
    {"exp", Intrinsic::exp, [](double x) { return std::exp(x); }, -110, 95, false, 4e-7},
    {"exp_small", Intrinsic::exp, [](double x) { return std::exp(x); }, -1, 1, false, 4e-7},
    {"log", Intrinsic::log, [](double x) { return std::log(x); }, -103, 88, true, 4e-7},
    {"log_near_1", Intrinsic::log, [](double x) { return std::log(x); }, 0.5, 2, false, 4e-7},
    {"log_negative", Intrinsic::log, [](double x) { return std::log(x); }, -100, 0, false, 4e-7},
    {"tanh", Intrinsic::tanh, [](double x) { return std::tanh(x); }, -12, 12, false, 5e-7},
    {"sigmoid", Intrinsic::sigmoid, sigmoid_ref, -110, 40, false, 5e-7},
    {"erf", Intrinsic::erf, [](double x) { return std::erf(x); }, -6, 6, false, 5e-7},
    {"sqrt", Intrinsic::sqrt, [](double x) { return std::sqrt(x); }, -1, 1e6, false, 6e-8},
    {"rsqrt", Intrinsic::rsqrt, rsqrt_ref, 0, 1e6, false, 1.2e-7},
    {"abs", Intrinsic::abs, [](double x) { return std::fabs(x); }, -100, 100, false, 0},
    {"floor", Intrinsic::floor, [](double x) { return std::floor(x); }, -100, 100, false, 0},
    {"ceil", Intrinsic::ceil, [](double x) { return std::ceil(x); }, -100, 100, false, 0},
    {"round", Intrinsic::round, [](double x) { return std::nearbyint(x); }, -100, 100, false, 0},
    {"trunc", Intrinsic::trunc, [](double x) { return std::trunc(x); }, -100, 100, false, 0},
};

INSTANTIATE_TEST_SUITE_P(Sweep, IntrinsicF32,
                         ::testing::Combine(::testing::ValuesIn(kF32Cases),
                                            ::testing::Values(8, 16)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param).name) + "_x" +
                                  std::to_string(std::get<1>(info.param));
                         });

TEST(IntrinsicF32Baseline, TranscendentalsWithoutFmaOnX86_64) {
  // x86-64 without FMA or AVX: separate multiplies and adds, 4-wide SSE vectors.
  if (target::host().triple.rfind("x86_64", 0) != 0) GTEST_SKIP() << "x86-64 only";
  target::Target baseline = target::parse_target("llvm -mcpu=x86-64");
  for (const UnaryCase& c : kF32Cases) {
    if (c.op != Intrinsic::exp && c.op != Intrinsic::log && c.op != Intrinsic::tanh &&
        c.op != Intrinsic::sigmoid && c.op != Intrinsic::erf)
      continue;
    SCOPED_TRACE(c.name);
    check_sweep(c, 8, baseline);
  }
}

class IntrinsicF32Tail : public ::testing::TestWithParam<Intrinsic> {};

TEST_P(IntrinsicF32Tail, BelowItsRangeGivesZeroWithoutUnderflowing) {
  // A softmax's masked positions (-inf, -1e9) and a sigmoid gate far below zero must not
  // compute a product that underflows: on x86-64 each such instruction takes a microcode
  // assist. The underflow flag shows it.
  std::vector<float> x;
  for (float s : {-kInf, -1e9f, -1e4f, -200.0f, -104.5f}) x.insert(x.end(), 16, s);
  int64_t n = static_cast<int64_t>(x.size());
  DataType f32 = DataType::Float(32);
  JitModule module = compile_unary(GetParam(), f32, n, 16);
  auto tin = array(x, f32), ts = array(std::vector<float>(n, 1.0f), f32),
       tv = array(std::vector<float>(n, 1.0f), f32);
  std::feclearexcept(FE_ALL_EXCEPT);
  ASSERT_EQ(call(module, "scalar", {&tin, &ts}), 0);
  ASSERT_EQ(call(module, "vector", {&tin, &tv}), 0);
  EXPECT_EQ(std::fetestexcept(FE_UNDERFLOW), 0) << "a lane underflowed";
  std::vector<float> s = values<float>(ts), v = values<float>(tv);
  for (int64_t k = 0; k < n; ++k) {
    EXPECT_EQ(s[k], 0.0f) << "scalar (" << x[k] << ")";
    EXPECT_EQ(v[k], 0.0f) << "vector (" << x[k] << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(ExpAndSigmoid, IntrinsicF32Tail,
                         ::testing::Values(Intrinsic::exp, Intrinsic::sigmoid),
                         [](const auto& info) { return std::string(intrinsic_name(info.param)); });

TEST(IntrinsicF32Pow, ScalarAndVectorMatchStd) {
  DataType f32 = DataType::Float(32);
  std::vector<float> a, b;
  for (int p = 0; p < 64; ++p)
    for (int q = 0; q < 64; ++q)
      a.push_back(0.05f + 0.16f * p), b.push_back(-5.0f + q * 10.0f / 63);
  const int64_t n = static_cast<int64_t>(a.size()), lanes = 8;
  Buffer A = buffer("A", f32, n), B = buffer("B", f32, n), S = buffer("S", f32, n),
         V = buffer("V", f32, n);
  Var i("i"), v("v");
  Expr idx = ramp(v * lanes, lanes);
  JitModule module(
      {PrimFunc{"scalar", {A, B, S}, loop(i, n, store(S, i, pow(load(A, i), load(B, i))))},
       PrimFunc{"vector",
                {A, B, V},
                loop(v, n / lanes, store(V, idx, pow(load(A, idx), load(B, idx))))}});
  auto ta = array(a, f32), tb = array(b, f32), ts = array(std::vector<float>(n), f32),
       tv = array(std::vector<float>(n), f32);
  ASSERT_EQ(call(module, "scalar", {&ta, &tb, &ts}), 0);
  ASSERT_EQ(call(module, "vector", {&ta, &tb, &tv}), 0);
  for (int64_t k = 0; k < n; ++k) {
    double ref = std::pow(static_cast<double>(a[k]), static_cast<double>(b[k]));
    EXPECT_NEAR(values<float>(ts)[k], ref, 2e-7 * std::fabs(ref)) << a[k] << "^" << b[k];
    EXPECT_NEAR(values<float>(tv)[k], ref, 2e-7 * std::fabs(ref)) << a[k] << "^" << b[k];
  }
}

TEST(IntrinsicF64, MatchStd) {
  DataType f64 = DataType::Float(64);
  struct Case {
    Intrinsic op;
    double (*reference)(double);
    double tol;
  };
  const Case cases[] = {{Intrinsic::exp, [](double x) { return std::exp(x); }, 1e-15},
                        {Intrinsic::tanh, [](double x) { return std::tanh(x); }, 1e-15},
                        {Intrinsic::erf, [](double x) { return std::erf(x); }, 1e-15},
                        {Intrinsic::sigmoid, sigmoid_ref, 1e-15},
                        {Intrinsic::sqrt, [](double x) { return std::sqrt(x); }, 1e-16}};
  std::vector<double> x;
  for (int k = 0; k < 4096; ++k) x.push_back(-20.0 + 40.0 * k / 4095);
  const int64_t n = static_cast<int64_t>(x.size());
  for (const Case& c : cases) {
    JitModule module = compile_unary(c.op, f64, n, 4);
    auto tin = array(x, f64), ts = array(std::vector<double>(n), f64),
         tv = array(std::vector<double>(n), f64);
    ASSERT_EQ(call(module, "scalar", {&tin, &ts}), 0);
    ASSERT_EQ(call(module, "vector", {&tin, &tv}), 0);
    for (int64_t k = 0; k < n; ++k) {
      double ref = c.reference(x[k]);
      if (std::isnan(ref)) continue;  // sqrt of negatives
      EXPECT_NEAR(values<double>(ts)[k], ref, c.tol * std::fabs(ref))
          << intrinsic_name(c.op) << "(" << x[k] << ")";
      EXPECT_NEAR(values<double>(tv)[k], ref, c.tol * std::fabs(ref))
          << intrinsic_name(c.op) << "(" << x[k] << ")";
    }
  }
}

TEST(IntrinsicInt, AbsOfSignedAndUnsigned) {
  DataType i32 = DataType::Int(32), u16 = DataType::UInt(16);
  std::vector<int32_t> a = {-5, 0, 7, -2147483647, 12, -1, 3, -8};
  std::vector<uint16_t> b = {0, 1, 65535, 7, 8, 9, 10, 11};
  Buffer A = buffer("A", i32, 8), B = buffer("B", u16, 8), C = buffer("C", i32, 8),
         D = buffer("D", u16, 8);
  Var v("v");
  Stmt body = make_Seq({store(C, ramp(v, 8), abs(load(A, ramp(v, 8)))),
                        store(D, ramp(v, 8), abs(load(B, ramp(v, 8))))});
  PrimFunc f{"iabs", {A, B, C, D}, loop(v, 1, body)};
  auto ta = array(a, i32), tb = array(b, u16), tc = array(std::vector<int32_t>(8), i32),
       td = array(std::vector<uint16_t>(8), u16);
  ASSERT_EQ(run(f, {&ta, &tb, &tc, &td}), 0);
  for (int k = 0; k < 8; ++k) {
    EXPECT_EQ(values<int32_t>(tc)[k], std::abs(a[k]));
    EXPECT_EQ(values<uint16_t>(td)[k], b[k]);
  }
}

TEST(IntrinsicF32Vector, TranscendentalsAreNotScalarisedIntoLibmCalls) {
  DataType f32 = DataType::Float(32);
  for (Intrinsic op :
       {Intrinsic::exp, Intrinsic::log, Intrinsic::tanh, Intrinsic::sigmoid, Intrinsic::erf}) {
    Buffer In = buffer("In", f32, 256), Out = buffer("Out", f32, 256);
    Var v("v");
    Expr idx = ramp(v * 16, 16);
    PrimFunc f{"vec_math", {In, Out}, loop(v, 16, store(Out, idx, make_Call(op, {load(In, idx)})))};
    std::string ir = emit_llvm_ir({f});
    std::istringstream lines(ir);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.rfind("declare", 0) != 0) continue;
      EXPECT_NE(line.find("@llvm."), std::string::npos) << intrinsic_name(op) << ": " << line;
    }
    EXPECT_NE(ir.find("<16 x float>"), std::string::npos) << intrinsic_name(op);
  }
}

}  // namespace
}  // namespace tessel::codegen::test

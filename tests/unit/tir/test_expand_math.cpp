// Tests of expand_math: which calls it rewrites, and its forms run in the interpreter (exact
// IEEE float32, no LLVM) against double-precision libm over sweeps plus special values,
// scalar and vector alike.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "ir/functor.h"
#include "ir/interpreter.h"
#include "ir/printer.h"
#include "tir/expand_math.h"
#include "tir/pipeline.h"

namespace tessel::tir {
namespace {

using namespace ir;

const DataType f32 = DataType::Float(32);
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

/// The intrinsics of every call in `s`, with their argument types.
std::vector<std::pair<Intrinsic, DataType>> calls_in(const Stmt& s) {
  struct Finder : IRVisitor {
    void visit_Call(const CallNode* op) override {
      found.emplace_back(op->op, op->args[0].dtype());
      IRVisitor::visit_Call(op);
    }
    std::vector<std::pair<Intrinsic, DataType>> found;
  } finder;
  finder.visit(s);
  return finder.found;
}

/// Out[i] = op(In[i]) for i < n, in `lanes`-wide vectors when lanes > 1.
PrimFunc unary_loop(Intrinsic op, DataType element, int64_t n, int lanes = 1) {
  Buffer in = Buffer::make("In", element, {make_int(n)});
  Buffer out = Buffer::make("Out", element, {make_int(n)});
  Var i("i");
  Expr index = lanes == 1 ? Expr(i) : make_Ramp(i * make_int(lanes), make_int(1), lanes);
  Stmt body = make_Store(out, make_Call(op, {make_Load(in, {index})}), {index});
  return PrimFunc{
      "f", {in, out}, make_For(i, make_int(0), make_int(n / lanes), ForKind::Serial, body)};
}

const Intrinsic kExpanded[] = {Intrinsic::exp, Intrinsic::log, Intrinsic::tanh, Intrinsic::erf,
                               Intrinsic::sigmoid};

TEST(ExpandMath, NoFloat32CallOfTheFiveRemains) {
  for (Intrinsic op : kExpanded)
    for (DataType t :
         {f32, DataType::Float(32, 16), DataType::Float(16, 8), DataType::BFloat(16)}) {
      PrimFunc out = expand_math(unary_loop(op, t.element(), 16, t.lanes));
      for (auto [call, type] : calls_in(out.body))
        EXPECT_TRUE(call != Intrinsic::exp && call != Intrinsic::log && call != Intrinsic::tanh &&
                    call != Intrinsic::erf && call != Intrinsic::sigmoid)
            << intrinsic_name(call) << " on " << type.to_string() << " remains in\n"
            << out;
    }
}

TEST(ExpandMath, Float64CallsAndOtherIntrinsicsStay) {
  for (Intrinsic op : kExpanded) {
    PrimFunc f = unary_loop(op, DataType::Float(64), 16, 4);
    EXPECT_TRUE(expand_math(f).body.same_as(f.body)) << intrinsic_name(op);
  }
  PrimFunc sine = unary_loop(Intrinsic::sin, f32, 16);
  EXPECT_TRUE(expand_math(sine).body.same_as(sine.body));
}

TEST(ExpandMath, ArgumentsAreExpandedToo) {
  Var x("x", f32);
  Expr e = expand_math(exp(tanh(x) + make_Cast(f32, erf(make_Cast(DataType::Float(64), x)))));
  PrimFunc wrapped{"g", {}, make_Evaluate(e)};
  std::vector<std::pair<Intrinsic, DataType>> left = calls_in(wrapped.body);
  int erf64 = 0;
  for (auto [call, type] : left) {
    EXPECT_NE(call, Intrinsic::exp);
    EXPECT_NE(call, Intrinsic::tanh);
    erf64 += call == Intrinsic::erf && type == DataType::Float(64);
  }
  EXPECT_EQ(erf64, 1) << e;
}

struct SweepCase {
  const char* name;
  Intrinsic op;
  double (*reference)(double);
  double lo, hi;
  bool log_spaced;  // sweep exp(u) for u in [lo, hi]
  double tol;       // relative error allowed: expand_math.h's table
};

double sigmoid_ref(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

/// Sweep points and special values, padded to a multiple of 8 lanes.
std::vector<float> sweep(const SweepCase& c, int points) {
  std::vector<float> x;
  for (int k = 0; k < points; ++k) {
    double u = c.lo + (c.hi - c.lo) * k / (points - 1);
    x.push_back(static_cast<float>(c.log_spaced ? std::exp(u) : u));
  }
  for (float s : {0.0f,   -0.0f,   FLT_MIN, -FLT_MIN, FLT_TRUE_MIN, 1e-40f, -1e-40f, 1.0f,
                  -1.0f,  0.5f,    -0.5f,   2.5f,     -2.5f,        0.625f, -0.625f, 88.7f,
                  -87.5f, -104.0f, FLT_MAX, -FLT_MAX, kInf,         -kInf,  kNaN})
    x.push_back(s);
  while (x.size() % 8) x.push_back(1.0f);
  return x;
}

/// Runs `f` (In -> Out, float32) in the interpreter on `x`.
std::vector<float> interpret(const PrimFunc& f, std::vector<float> x) {
  std::vector<float> y(x.size());
  run(f, {x.data(), y.data()});
  return y;
}

class ExpandMathSweep : public ::testing::TestWithParam<SweepCase> {};

TEST_P(ExpandMathSweep, InterpreterMatchesLibmAndVectorMatchesScalar) {
  const SweepCase& c = GetParam();
  std::vector<float> x = sweep(c, 1 << 17);
  int64_t n = static_cast<int64_t>(x.size());
  std::vector<float> scalar = interpret(expand_math(unary_loop(c.op, f32, n)), x);
  std::vector<float> vector = interpret(expand_math(unary_loop(c.op, f32, n, 8)), x);
  double max_rel = 0;
  int failures = 0;
  for (int64_t k = 0; k < n && failures < 20; ++k) {
    std::string what = std::string(c.name) + "(" + std::to_string(x[k]) + ")";
    EXPECT_TRUE(std::memcmp(&scalar[k], &vector[k], sizeof(float)) == 0 ||
                (std::isnan(scalar[k]) && std::isnan(vector[k])))
        << what << ": scalar " << scalar[k] << ", vector " << vector[k];
    double ref = c.reference(x[k]);
    float got = scalar[k];
    if (std::isnan(ref)) {
      failures += !std::isnan(got);
      EXPECT_TRUE(std::isnan(got)) << what << " = " << got;
      continue;
    }
    float ref_f = static_cast<float>(ref);
    if (std::isinf(ref_f)) {
      failures += got != ref_f;
      EXPECT_EQ(got, ref_f) << what;
      continue;
    }
    if (got == 0.0f && std::fabs(ref) < FLT_MIN) continue;  // flushed below the normal range
    double err = std::fabs(got - ref);
    if (std::fabs(ref) >= FLT_MIN) max_rel = std::max(max_rel, err / std::fabs(ref));
    bool ok = err <= c.tol * std::fabs(ref) + FLT_TRUE_MIN;
    failures += !ok;
    EXPECT_TRUE(ok) << what << " = " << got << ", expected " << ref;
  }
  std::ostringstream error;
  error << std::scientific << max_rel;
  RecordProperty(std::string("max_relative_error_") + c.name, error.str());
}

const SweepCase kSweeps[] = {
    {"exp", Intrinsic::exp, [](double x) { return std::exp(x); }, -110, 95, false, 8.1e-8},
    {"exp_small", Intrinsic::exp, [](double x) { return std::exp(x); }, -1, 1, false, 8.1e-8},
    {"log", Intrinsic::log, [](double x) { return std::log(x); }, -103, 88, true, 7.8e-8},
    {"log_near_1", Intrinsic::log, [](double x) { return std::log(x); }, 0.5, 2, false, 7.8e-8},
    {"log_negative", Intrinsic::log, [](double x) { return std::log(x); }, -100, 0, false, 7.8e-8},
    {"tanh", Intrinsic::tanh, [](double x) { return std::tanh(x); }, -12, 12, false, 1.2e-7},
    {"sigmoid", Intrinsic::sigmoid, sigmoid_ref, -110, 40, false, 1.8e-7},
    {"erf", Intrinsic::erf, [](double x) { return std::erf(x); }, -6, 6, false, 3.5e-7},
};

INSTANTIATE_TEST_SUITE_P(Sweep, ExpandMathSweep, ::testing::ValuesIn(kSweeps),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(ExpandMath, PipelineOutputComputesTheSameBits) {
  // The pipeline expands after vectorize and simplifies the result: a vectorized loop of
  // the call gives exactly the expanded scalar loop's values, special values included.
  const SweepCase wide{"wide", Intrinsic::exp, nullptr, -120, 120, false, 0};
  std::vector<float> x = sweep(wide, 4096);
  int64_t n = static_cast<int64_t>(x.size());
  for (Intrinsic op : kExpanded) {
    PrimFunc scalar = unary_loop(op, f32, n);
    Buffer in = scalar.params[0], out = scalar.params[1];
    Var i("i"), j("j");
    Expr index = i * make_int(8) + j;
    Stmt inner = make_For(j, make_int(0), make_int(8), ForKind::Vectorized,
                          make_Store(out, make_Call(op, {make_Load(in, {index})}), {index}));
    PrimFunc loops{
        "f", {in, out}, make_For(i, make_int(0), make_int(n / 8), ForKind::Serial, inner)};
    PassOptions verify;
    verify.verify = true;
    PrimFunc compiled = run_passes(loops, verify);
    EXPECT_TRUE(ir::to_string(compiled).find("Out[ramp(i * 8, 1, 8)]") != std::string::npos)
        << compiled;
    std::vector<float> expected = interpret(expand_math(scalar), x);
    std::vector<float> got = interpret(compiled, x);
    EXPECT_EQ(std::memcmp(expected.data(), got.data(), x.size() * sizeof(float)), 0)
        << intrinsic_name(op);
  }
}

TEST(ExpandMath, SixteenBitFloatsRoundTheFloat32Result) {
  // Computed in float32 and rounded once, like the interpreter's own exp of float16.
  for (DataType t : {DataType::Float(16), DataType::BFloat(16)}) {
    Var x("x", t);
    for (double v : {-3.0, -0.25, 0.0, 0.5, 1.0, 2.0, 7.0}) {
      Env env;
      env.bind(x, Value::from_float(t, v));
      for (Intrinsic op : kExpanded) {
        Expr call = make_Call(op, {x});
        double got = evaluate(expand_math(call), env).float_at();
        double expected = evaluate(call, env).float_at();
        EXPECT_TRUE(got == expected || (std::isnan(got) && std::isnan(expected)))
            << intrinsic_name(op) << "(" << v << ") in " << t.to_string() << " = " << got
            << ", expected " << expected;
      }
    }
  }
}

}  // namespace
}  // namespace tessel::tir

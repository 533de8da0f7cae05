// End to end IEEE behaviour: NaN-propagating min / max (element-wise and reductions, every
// float width, scalar and vector), NaN and infinity through the math intrinsics and
// comparisons in whole kernels, and the constant folder agreeing with the kernels.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>

#include "arith/analyzer.h"
#include "e2e_test_util.h"

namespace tessel::e2e_test {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Pairs covering NaN on either side, infinities and signed zeros, repeated past 16 lanes.
std::pair<std::vector<double>, std::vector<double>> min_max_inputs() {
  const double pairs[][2] = {{1, 2},        {2, 1},       {kNaN, 1},  {1, kNaN},   {kNaN, kNaN},
                             {-kInf, kNaN}, {kNaN, kInf}, {kInf, -1}, {-kInf, 3},  {0.5, -0.5},
                             {-3, -3},      {7, kNaN},    {kNaN, -7}, {100, -100}, {-0.25, 4},
                             {9, 8},        {kNaN, 0},    {0, kNaN},  {1, -kInf}};
  std::vector<double> a, b;
  for (const auto& p : pairs) a.push_back(p[0]), b.push_back(p[1]);
  return {a, b};
}

double nan_min(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? kNaN : std::min(a, b);
}
double nan_max(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b);
}

template <class T>
void check_min_max() {
  DataType t = dtype_of<T>();
  auto [a64, b64] = min_max_inputs();
  std::vector<T> a(a64.begin(), a64.end()), b(b64.begin(), b64.end());
  const int64_t n = static_cast<int64_t>(a.size());
  te::Tensor A = te::placeholder({n}, t, "A"), B = te::placeholder({n}, t, "B");
  te::Tensor mn = elementwise(
      {A, B}, [](const std::vector<Expr>& v) { return ir::min(v[0], v[1]); }, "mn");
  te::Tensor mx = elementwise(
      {A, B}, [](const std::vector<Expr>& v) { return ir::max(v[0], v[1]); }, "mx");
  // ReLU-like max against a constant keeps the NaN of the data operand too.
  te::Tensor relu = elementwise(
      {A}, [&](const std::vector<Expr>& v) { return ir::max(v[0], ir::make_const(t, 0)); }, "relu");
  for (Sched sched : {Sched::Plain, Sched::Vector8, Sched::Vector16}) {
    SCOPED_TRACE(t.to_string() + ", " + sched_name(sched));
    auto ta = array_of({n}, a), tb = array_of({n}, b);
    auto tmin = array_of({n}, std::vector<T>(n)), tmax = array_of({n}, std::vector<T>(n)),
         trelu = array_of({n}, std::vector<T>(n));
    build_and_run(mn, {A, B}, sched, {&ta, &tb, &tmin});
    build_and_run(mx, {A, B}, sched, {&ta, &tb, &tmax});
    build_and_run(relu, {A}, sched, {&ta, &trelu});
    for (int64_t k = 0; k < n; ++k) {
      double x = a64[k], y = b64[k];
      auto same = [](double got, double expected) {
        return std::isnan(expected) ? std::isnan(got) : got == expected;
      };
      EXPECT_TRUE(same(static_cast<double>(values_of<T>(tmin)[k]), nan_min(x, y)))
          << "min(" << x << ", " << y << ") = " << static_cast<double>(values_of<T>(tmin)[k]);
      EXPECT_TRUE(same(static_cast<double>(values_of<T>(tmax)[k]), nan_max(x, y)))
          << "max(" << x << ", " << y << ") = " << static_cast<double>(values_of<T>(tmax)[k]);
      EXPECT_TRUE(same(static_cast<double>(values_of<T>(trelu)[k]), nan_max(x, 0)))
          << "max(" << x << ", 0) = " << static_cast<double>(values_of<T>(trelu)[k]);
    }
  }
}

TEST(IeeeE2E, MinMaxPropagateNanFloat16) {
  check_min_max<_Float16>();
}
TEST(IeeeE2E, MinMaxPropagateNanFloat32) {
  check_min_max<float>();
}
TEST(IeeeE2E, MinMaxPropagateNanFloat64) {
  check_min_max<double>();
}

TEST(IeeeE2E, MinMaxReductionsPropagateNan) {
  // Rows: plain values, a NaN in the middle, infinities, NaN first, NaN last.
  const int64_t rows = 5, cols = 19;
  std::vector<float> x(rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i) x[i] = static_cast<float>((i * 7) % 23) - 11.0f;
  x[1 * cols + 9] = NAN;
  x[2 * cols + 3] = INFINITY;
  x[2 * cols + 4] = -INFINITY;
  x[3 * cols + 0] = NAN;
  x[4 * cols + cols - 1] = NAN;
  te::Tensor X = te::placeholder({rows, cols}, DataType::Float(32), "X");
  te::IterVar k = te::reduce_axis(cols, "k");
  te::Tensor mx = te::compute(
      {rows}, [&](Var i) { return te::max_reduce(X(i, k), {k}); }, "mx");
  te::IterVar k2 = te::reduce_axis(cols, "k2");
  te::Tensor mn = te::compute(
      {rows}, [&](Var i) { return te::min_reduce(X(i, k2), {k2}); }, "mn");
  auto tx = array_of({rows, cols}, x);
  auto tmax = array_of({rows}, std::vector<float>(rows)),
       tmin = array_of({rows}, std::vector<float>(rows));
  build_and_run(mx, {X}, Sched::Plain, {&tx, &tmax});
  build_and_run(mn, {X}, Sched::Plain, {&tx, &tmin});
  for (int64_t i = 0; i < rows; ++i) {
    double hi = -kInf, lo = kInf;
    for (int64_t j = 0; j < cols; ++j) {
      hi = nan_max(hi, x[i * cols + j]);
      lo = nan_min(lo, x[i * cols + j]);
    }
    float got_hi = values_of<float>(tmax)[i], got_lo = values_of<float>(tmin)[i];
    if (std::isnan(hi))
      EXPECT_TRUE(std::isnan(got_hi)) << "row " << i;
    else
      EXPECT_EQ(got_hi, hi) << "row " << i;
    if (std::isnan(lo))
      EXPECT_TRUE(std::isnan(got_lo)) << "row " << i;
    else
      EXPECT_EQ(got_lo, lo) << "row " << i;
  }
}

TEST(IeeeE2E, SpecialValuesThroughAWholeKernel) {
  // One kernel combining intrinsics and comparisons; each output row is one function.
  const std::vector<float> x = {-INFINITY, INFINITY, NAN, 0.0f, -0.0f, -1.0f, 100.0f, -100.0f};
  const int64_t n = static_cast<int64_t>(x.size());
  te::Tensor X = te::placeholder({n}, DataType::Float(32), "X");
  struct Case {
    const char* name;
    Expr (*fn)(Expr);
    double (*ref)(double);
  };
  const Case cases[] = {
      {"exp", ir::exp, [](double v) { return std::exp(v); }},
      {"log", ir::log, [](double v) { return std::log(v); }},
      {"tanh", ir::tanh, [](double v) { return std::tanh(v); }},
      {"sigmoid", ir::sigmoid, [](double v) { return 1 / (1 + std::exp(-v)); }},
      {"erf", ir::erf, [](double v) { return std::erf(v); }},
      {"sqrt", ir::sqrt, [](double v) { return std::sqrt(v); }},
  };
  for (const Case& c : cases) {
    te::Tensor y = elementwise(
        {X}, [&](const std::vector<Expr>& v) { return c.fn(v[0]); }, std::string("k_") + c.name);
    for (Sched sched : {Sched::Plain, Sched::Vector8}) {
      auto tx = array_of({n}, x), ty = array_of({n}, std::vector<float>(n));
      build_and_run(y, {X}, sched, {&tx, &ty});
      for (int64_t k = 0; k < n; ++k) {
        float expected = static_cast<float>(c.ref(x[k])), got = values_of<float>(ty)[k];
        // A result below the normal range (sigmoid(-100)) may flush to zero.
        if (got == 0 && std::fabs(expected) < FLT_MIN) continue;
        if (std::isnan(expected) || std::isinf(expected) || expected == 0)
          EXPECT_TRUE(std::isnan(expected) ? std::isnan(got) : got == expected)
              << c.name << "(" << x[k] << ") = " << got << " " << sched_name(sched);
        else
          EXPECT_NEAR(got, expected, 5e-7 * std::fabs(expected)) << c.name << "(" << x[k] << ")";
      }
    }
  }
  // is_nan, x != x and x == inf as a bool kernel.
  te::Tensor flags = elementwise(
      {X},
      [](const std::vector<Expr>& v) {
        return ir::is_nan(v[0]) == (v[0] != v[0]) && ir::is_inf(v[0]) == (ir::abs(v[0]) == kInf);
      },
      "flags");
  auto tx = array_of({n}, x), tf = array_of({n}, std::vector<uint8_t>(n, 0));
  build_and_run(flags, {X}, Sched::Vector8, {&tx, &tf});
  EXPECT_EQ(bytes_of(tf), std::vector<uint8_t>(n, 1));
}

TEST(IeeeE2E, ConstantFoldingAgreesWithKernels) {
  arith::Analyzer analyzer;
  DataType f32 = DataType::Float(32), f16 = DataType::Float(16);
  auto folded = [&](const Expr& e) {
    Expr s = analyzer.simplify(e);
    const auto* imm = s.as<ir::FloatImmNode>();
    EXPECT_NE(imm, nullptr) << "not folded";
    return imm ? imm->value : 0.0;
  };
  EXPECT_TRUE(std::isnan(folded(ir::max(ir::make_float(kNaN, f32), ir::make_float(1.0, f32)))));
  EXPECT_TRUE(std::isnan(folded(ir::min(ir::make_float(2.0, f32), ir::make_float(kNaN, f32)))));
  EXPECT_EQ(folded(ir::max(ir::make_float(-kInf, f32), ir::make_float(3.0, f32))), 3.0);
  // float16 immediates are rounded to half precision: 0.1 -> 0.0999755859375.
  EXPECT_EQ(folded(ir::make_float(0.05, f16) + ir::make_float(0.05, f16)),
            static_cast<double>(static_cast<_Float16>(0.05) + static_cast<_Float16>(0.05)));
  EXPECT_EQ(folded(ir::cast(f16, ir::make_float(0.1, DataType::Float(64)))),
            static_cast<double>(static_cast<_Float16>(0.1)));
}

}  // namespace
}  // namespace tessel::e2e_test

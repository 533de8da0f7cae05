// Unary math operators against <cmath> on every float type (and the integer types the
// operator accepts), special values included, through executor::run_node.
#include "unit/ops_elementwise/elementwise_test_util.h"

namespace tessel::ops::testing {
namespace {

struct UnaryCase {
  std::string op;
  std::function<double(double)> reference;
  std::vector<double> values;
  std::vector<DType> dtypes;
};

std::vector<double> with_range(std::vector<double> values, double lo, double hi, int n) {
  for (int k = 0; k < n; ++k) values.push_back(lo + (hi - lo) * k / (n - 1));
  return values;
}

const std::vector<DType> kFloats = {kF32, kF64, kF16, kBF16};
// bfloat16 Abs, Floor, Ceil and Round: LLVM narrows them to bfloat16 operations whose
// lowering calls __truncsfbf2, which the JIT does not provide (a codegen limitation).
const std::vector<DType> kExactFloats = {kF32, kF64, kF16};
const std::vector<double> kSpecials = {kNaN, kInf, -kInf, 0.0, -0.0};

std::vector<double> general() {
  return with_range(kSpecials, -3.7, 3.7, 29);
}
std::vector<double> unit_interval() {
  return with_range({kNaN, 1.5, -1.5}, -1, 1, 21);
}

double sign(double x) {
  return x > 0 ? 1 : x < 0 ? -1 : x == 0 ? 0 : kNaN;
}

std::vector<UnaryCase> cases() {
  std::vector<DType> numeric = {kF32, kF64, kF16, kI8, kI16, kI32, kI64, kU8, kU16, kU32, kU64};
  std::vector<DType> signed_numeric = {kF32, kF64, kF16, kI8, kI16, kI32, kI64};
  std::vector<double> small_ints = {-3, -2, -1, 0, 1, 2, 3, 100, -100, 7};
  return {
      {"Abs", [](double x) { return std::fabs(x); }, general(), kExactFloats},
      {"Abs", [](double x) { return std::fabs(x); }, small_ints, signed_numeric},
      {"Abs", [](double x) { return x; }, {0, 1, 2, 100, 7}, {kU8, kU16, kU32, kU64}},
      {"Neg", [](double x) { return -x; }, general(), kFloats},
      {"Neg", [](double x) { return -x; }, small_ints, signed_numeric},
      {"Sign", sign, general(), kFloats},
      {"Sign", sign, small_ints, signed_numeric},
      {"Sign", sign, {0, 1, 2, 100, 7}, numeric},
      {"Exp", [](double x) { return std::exp(x); }, with_range(kSpecials, -20, 20, 41), kFloats},
      {"Log", [](double x) { return std::log(x); },
       with_range({kNaN, kInf, 0.0, -1.0, 1e-30, 1e30}, 0.01, 50, 33), kFloats},
      {"Sqrt", [](double x) { return std::sqrt(x); },
       with_range({kNaN, kInf, 0.0, -1.0}, 0.01, 50, 33), kFloats},
      {"Reciprocal", [](double x) { return 1 / x; }, general(), kFloats},
      {"Floor", [](double x) { return std::floor(x); }, general(), kExactFloats},
      {"Ceil", [](double x) { return std::ceil(x); }, general(), kExactFloats},
      {"Round", [](double x) { return std::nearbyint(x); },
       with_range({kNaN, kInf, -kInf, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999, 2.5001}, -6, 6, 31),
       kExactFloats},
      {"Sin", [](double x) { return std::sin(x); }, general(), kFloats},
      {"Cos", [](double x) { return std::cos(x); }, general(), kFloats},
      {"Tan", [](double x) { return std::tan(x); }, with_range({kNaN, 0.0}, -1.5, 1.5, 25),
       kFloats},
      {"Asin", [](double x) { return std::asin(x); }, unit_interval(), kFloats},
      {"Acos", [](double x) { return std::acos(x); }, unit_interval(), kFloats},
      {"Atan", [](double x) { return std::atan(x); }, general(), kFloats},
      {"Sinh", [](double x) { return std::sinh(x); }, general(), kFloats},
      {"Cosh", [](double x) { return std::cosh(x); }, general(), kFloats},
      {"Asinh", [](double x) { return std::asinh(x); }, general(), kFloats},
      {"Acosh", [](double x) { return std::acosh(x); }, with_range({kNaN, kInf, 0.5}, 1, 10, 19),
       kFloats},
      {"Atanh", [](double x) { return std::atanh(x); },
       with_range({kNaN, 1.5, -1.5}, -0.95, 0.95, 19), kFloats},
      {"Erf", [](double x) { return std::erf(x); }, general(), kFloats},
      {"Erf", [](double x) { return std::trunc(std::erf(x)); }, small_ints, {kI32, kI64}},
      {"IsNaN", [](double x) { return std::isnan(x) ? 1.0 : 0.0; }, general(), kFloats},
      {"IsInf", [](double x) { return std::isinf(x) ? 1.0 : 0.0; }, general(), kFloats},
  };
}

/// Relative tolerance of the comparison for results of `dtype` (float32 math functions
/// are vectorisable approximations).
double tolerance(DType dtype) {
  return dtype == kF32 ? 1e-5 : rtol_for(dtype);
}

TEST(UnaryMath, MatchesStdMath) {
  for (const UnaryCase& c : cases()) {
    for (DType dtype : c.dtypes) {
      std::vector<double> inputs = stored(dtype, c.values);
      int64_t n = static_cast<int64_t>(inputs.size());
      NDArray x = make_array(dtype, {n}, inputs);
      std::vector<NDArray> y;
      try {
        y = run_op_outputs(c.op, {&x});
      } catch (const std::exception& e) {
        ADD_FAILURE() << c.op << " on " << dtype.to_string() << ": " << e.what();
        continue;
      }
      ASSERT_EQ(y.size(), 1u);
      bool bool_result = c.op == "IsNaN" || c.op == "IsInf";
      DType out_type = bool_result ? kBool : dtype;
      std::vector<double> expected;
      for (double v : inputs) expected.push_back(c.reference(v));
      // The reference is rounded to the output type, as the operator's result is.
      expected = stored(out_type, expected);
      expect_array(y[0], out_type, {n}, expected, tolerance(dtype), 1e-6,
                   c.op + " on " + dtype.to_string());
    }
  }
}

TEST(UnaryMath, KeepsShapeOfHigherRankAndScalarInputs) {
  std::vector<double> values;
  for (int k = 0; k < 2 * 3 * 17; ++k) values.push_back(0.1 * k - 5);
  NDArray x = make_array(kF32, {2, 3, 17}, values);
  std::vector<double> expected;
  for (double v : stored(kF32, values)) expected.push_back(std::floor(v));
  expect_array(run_op("Floor", {&x}), kF32, {2, 3, 17}, expected);

  NDArray scalar = make_array(kF64, {}, {-2.0});
  expect_array(run_op("Abs", {&scalar}), kF64, {}, {2.0});
}

TEST(UnaryMath, IsInfDetectsTheRequestedSigns) {
  std::vector<double> values = {kInf, -kInf, kNaN, 0, 1e30};
  NDArray x = make_array(kF32, {5}, values);
  auto run = [&](int positive, int negative) {
    return run_op("IsInf", {&x},
                  {{"detect_positive", graph::Attribute::of_int(positive)},
                   {"detect_negative", graph::Attribute::of_int(negative)}},
                  10)
        .copy();
  };
  expect_array(run(1, 1), kBool, {5}, {1, 1, 0, 0, 0});
  expect_array(run(1, 0), kBool, {5}, {1, 0, 0, 0, 0});
  expect_array(run(0, 1), kBool, {5}, {0, 1, 0, 0, 0});
  expect_array(run(0, 0), kBool, {5}, {0, 0, 0, 0, 0});
}

TEST(UnaryMath, NotNegatesBools) {
  NDArray x = make_array(kBool, {2, 2}, {1, 0, 0, 1});
  expect_array(run_op("Not", {&x}), kBool, {2, 2}, {0, 1, 1, 0});
}

TEST(UnaryMath, RejectsUnsupportedElementTypes) {
  NDArray ints = make_array(kI32, {2}, {1, 2});
  EXPECT_THROW(run_op("Exp", {&ints}), CompileError);
  NDArray floats = make_array(kF32, {2}, {1, 2});
  try {
    run_op("Not", {&floats});
    ADD_FAILURE() << "Not accepted float32";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("float32"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tessel::ops::testing

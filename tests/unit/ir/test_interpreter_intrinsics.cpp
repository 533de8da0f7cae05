// The interpreter's intrinsics against the C++ standard library on the same values:
// float math in float32 and float64, is_nan / is_inf, and the integer intrinsics (abs,
// fmod, bitwise, shifts) on every width and signedness.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "ir/interpreter.h"

namespace tessel::ir {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Value eval_call(Intrinsic op, std::vector<Expr> args) {
  return evaluate(make_Call(op, std::move(args)), Env{});
}

/// Expects got == expected, NaN matching NaN and zeros matching in sign.
void expect_same(double got, double expected, const std::string& what) {
  if (std::isnan(expected)) {
    EXPECT_TRUE(std::isnan(got)) << what << " = " << got;
  } else {
    EXPECT_EQ(got, expected) << what;
    EXPECT_EQ(std::signbit(got), std::signbit(expected)) << what;
  }
}

struct FloatCase {
  Intrinsic op;
  float (*f32)(float, float);
  double (*f64)(double, double);
};

#define FLOAT_CASE(op, expr)               \
  FloatCase {                              \
    Intrinsic::op,                         \
        [](float a, float b) -> float {    \
          (void)b;                         \
          return expr;                     \
        },                                 \
        [](double a, double b) -> double { \
          (void)b;                         \
          return expr;                     \
        }                                  \
  }

TEST(InterpreterIntrinsics, FloatMathMatchesStdInEachWidth) {
  const FloatCase cases[] = {
      FLOAT_CASE(sin, std::sin(a)),      FLOAT_CASE(cos, std::cos(a)),
      FLOAT_CASE(tan, std::tan(a)),      FLOAT_CASE(asin, std::asin(a)),
      FLOAT_CASE(acos, std::acos(a)),    FLOAT_CASE(atan, std::atan(a)),
      FLOAT_CASE(sinh, std::sinh(a)),    FLOAT_CASE(cosh, std::cosh(a)),
      FLOAT_CASE(asinh, std::asinh(a)),  FLOAT_CASE(acosh, std::acosh(a)),
      FLOAT_CASE(atanh, std::atanh(a)),  FLOAT_CASE(exp, std::exp(a)),
      FLOAT_CASE(log, std::log(a)),      FLOAT_CASE(tanh, std::tanh(a)),
      FLOAT_CASE(erf, std::erf(a)),      FLOAT_CASE(sqrt, std::sqrt(a)),
      FLOAT_CASE(abs, std::fabs(a)),     FLOAT_CASE(floor, std::floor(a)),
      FLOAT_CASE(ceil, std::ceil(a)),    FLOAT_CASE(round, std::nearbyint(a)),
      FLOAT_CASE(trunc, std::trunc(a)),  FLOAT_CASE(pow, std::pow(a, b)),
      FLOAT_CASE(fmod, std::fmod(a, b)),
  };
  const double xs[] = {0.0,  -0.0,  0.3,    -0.7, 1.0,  -1.0,  2.5,
                       -3.5, 17.25, -100.0, 1e30, kInf, -kInf, kNaN};
  const double ys[] = {1.0, -2.0, 0.5, 0.0, kInf, kNaN};
  for (const FloatCase& c : cases) {
    bool binary = intrinsic_arity(c.op) == 2;
    for (double x : xs)
      for (double y :
           binary ? std::vector<double>(std::begin(ys), std::end(ys)) : std::vector<double>{0.0}) {
        std::string what = std::string(intrinsic_name(c.op)) + "(" + std::to_string(x) +
                           (binary ? ", " + std::to_string(y) : "") + ")";
        auto args = [&](DataType t) {
          std::vector<Expr> a = {make_float(x, t)};
          if (binary) a.push_back(make_float(y, t));
          return a;
        };
        Value v32 = eval_call(c.op, args(DataType::Float(32)));
        Value v64 = eval_call(c.op, args(DataType::Float(64)));
        EXPECT_EQ(v32.dtype, DataType::Float(32));
        expect_same(v32.float_at(0), c.f32(static_cast<float>(x), static_cast<float>(y)),
                    what + " float32");
        expect_same(v64.float_at(0), c.f64(x, y), what + " float64");
      }
  }
}

TEST(InterpreterIntrinsics, IsNanIsInfGiveBool) {
  for (DataType t : {DataType::Float(16), DataType::Float(32), DataType::Float(64)})
    for (double x : {0.0, 1.0, -1e300, kInf, -kInf, kNaN}) {
      Value n = eval_call(Intrinsic::is_nan, {make_float(x, t)});
      Value i = eval_call(Intrinsic::is_inf, {make_float(x, t)});
      EXPECT_EQ(n.dtype, DataType::Bool());
      // -1e300 rounds to -inf in float16 and float32.
      double stored = t.bits == 64 ? x : static_cast<double>(static_cast<float>(x));
      EXPECT_EQ(n.int_at(0), std::isnan(stored) ? 1 : 0) << x << " " << t.to_string();
      EXPECT_EQ(i.int_at(0), std::isinf(stored) ? 1 : 0) << x << " " << t.to_string();
    }
}

template <class T>
void check_integer_intrinsics() {
  using U = std::make_unsigned_t<T>;
  constexpr int bits = 8 * sizeof(T);
  DataType t = std::is_signed_v<T> ? DataType::Int(bits) : DataType::UInt(bits);
  const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  const T values[] = {0, 1, T(-1), 5, T(-7), lo, hi, T(lo + 1), T(0x5a)};
  auto imm = [&](T v) { return make_int(static_cast<int64_t>(v), t); };
  auto eval = [&](Intrinsic op, std::vector<Expr> args) {
    return static_cast<T>(eval_call(op, std::move(args)).int_at(0));
  };
  for (T a : values) {
    EXPECT_EQ(eval(Intrinsic::abs, {imm(a)}), a < 0 ? T(U(0) - U(a)) : a) << +a;
    EXPECT_EQ(eval(Intrinsic::bitwise_not, {imm(a)}), T(~a)) << +a;
    for (T b : values) {
      EXPECT_EQ(eval(Intrinsic::bitwise_and, {imm(a), imm(b)}), T(a & b));
      EXPECT_EQ(eval(Intrinsic::bitwise_or, {imm(a), imm(b)}), T(a | b));
      EXPECT_EQ(eval(Intrinsic::bitwise_xor, {imm(a), imm(b)}), T(a ^ b));
      if (b != 0) {
        T expected = std::is_signed_v<T> && b == T(-1) ? T(0) : T(a % b);
        EXPECT_EQ(eval(Intrinsic::fmod, {imm(a), imm(b)}), expected) << +a << " fmod " << +b;
      }
    }
    for (int s : {0, 1, 3, bits - 1, bits, bits + 5}) {
      T l = s >= bits ? T(0) : T(U(a) << s);
      T r = std::is_signed_v<T> ? T(a >> std::min(s, bits - 1)) : (s >= bits ? T(0) : T(a >> s));
      EXPECT_EQ(eval(Intrinsic::shift_left, {imm(a), imm(T(s))}), l) << +a << " << " << s;
      EXPECT_EQ(eval(Intrinsic::shift_right, {imm(a), imm(T(s))}), r) << +a << " >> " << s;
    }
  }
}

TEST(InterpreterIntrinsics, IntegerIntrinsicsInt8) {
  check_integer_intrinsics<int8_t>();
}
TEST(InterpreterIntrinsics, IntegerIntrinsicsInt16) {
  check_integer_intrinsics<int16_t>();
}
TEST(InterpreterIntrinsics, IntegerIntrinsicsInt32) {
  check_integer_intrinsics<int32_t>();
}
TEST(InterpreterIntrinsics, IntegerIntrinsicsInt64) {
  check_integer_intrinsics<int64_t>();
}
TEST(InterpreterIntrinsics, IntegerIntrinsicsUInt8) {
  check_integer_intrinsics<uint8_t>();
}
TEST(InterpreterIntrinsics, IntegerIntrinsicsUInt16) {
  check_integer_intrinsics<uint16_t>();
}
TEST(InterpreterIntrinsics, IntegerIntrinsicsUInt32) {
  check_integer_intrinsics<uint32_t>();
}
TEST(InterpreterIntrinsics, IntegerIntrinsicsUInt64) {
  check_integer_intrinsics<uint64_t>();
}

TEST(InterpreterIntrinsics, BitwiseOnBoolStaysZeroOrOne) {
  for (bool a : {false, true}) {
    EXPECT_EQ(eval_call(Intrinsic::bitwise_not, {make_bool(a)}).int_at(0), a ? 0 : 1);
    for (bool b : {false, true}) {
      EXPECT_EQ(eval_call(Intrinsic::bitwise_and, {make_bool(a), make_bool(b)}).int_at(0), a & b);
      EXPECT_EQ(eval_call(Intrinsic::bitwise_xor, {make_bool(a), make_bool(b)}).int_at(0), a ^ b);
    }
  }
}

TEST(InterpreterIntrinsics, FloatMinMaxPropagateNan) {
  for (DataType t : {DataType::Float(16), DataType::Float(32), DataType::Float(64)}) {
    Expr nan = make_float(kNaN, t), one = make_float(1.0, t), inf = make_float(kInf, t);
    EXPECT_TRUE(std::isnan(evaluate(min(nan, one), Env{}).float_at(0))) << t.to_string();
    EXPECT_TRUE(std::isnan(evaluate(max(one, nan), Env{}).float_at(0))) << t.to_string();
    EXPECT_TRUE(std::isnan(evaluate(max(inf, nan), Env{}).float_at(0))) << t.to_string();
    EXPECT_EQ(evaluate(max(inf, one), Env{}).float_at(0), kInf) << t.to_string();
    EXPECT_EQ(evaluate(min(inf, one), Env{}).float_at(0), 1.0) << t.to_string();
  }
}

}  // namespace
}  // namespace tessel::ir

// The interpreter's intrinsics against the C++ standard library on the same values:
// float math in float32 and float64, is_nan / is_inf, fma against std::fma, reinterpret
// against bit copies, and the integer intrinsics (abs, fmod, bitwise, shifts) on every width
// and signedness.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "ir/interpreter.h"
#include "support/error.h"

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

template <class T>
void check_fma(DataType t) {
  // (1 + eps)(1 - eps) - 1 is -eps^2 when rounded once, 0 when the product rounds first.
  constexpr T eps = std::numeric_limits<T>::epsilon();
  const T cases[][3] = {{1 + eps, 1 - eps, -1},      {T(0.1), 10, -1}, {3, T(1) / 3, -1},
                        {T(1e30), T(1e30), T(kInf)}, {T(kInf), 0, 1},  {T(kNaN), 1, 2},
                        {T(-0.0), 1, T(-0.0)}};
  for (const auto& c : cases) {
    Value v =
        eval_call(Intrinsic::fma, {make_float(c[0], t), make_float(c[1], t), make_float(c[2], t)});
    EXPECT_EQ(v.dtype, t);
    expect_same(v.float_at(0), std::fma(c[0], c[1], c[2]),
                "fma(" + std::to_string(c[0]) + ", " + std::to_string(c[1]) + ", " +
                    std::to_string(c[2]) + ") in " + t.to_string());
  }
  EXPECT_EQ(
      eval_call(Intrinsic::fma, {make_float(1 + eps, t), make_float(1 - eps, t), make_float(-1, t)})
          .float_at(0),
      -static_cast<double>(eps) * eps);
}

TEST(InterpreterIntrinsics, FmaRoundsOnce) {
  check_fma<float>(DataType::Float(32));
  check_fma<double>(DataType::Float(64));
}

template <class F, class I>
void check_reinterpret(DataType float_type, DataType int_type, std::vector<F> values) {
  for (F v : values) {
    I bits;
    std::memcpy(&bits, &v, sizeof bits);
    Expr as_int = reinterpret(make_float(static_cast<double>(v), float_type));
    EXPECT_EQ(as_int.dtype(), DataType::Int(int_type.bits));
    EXPECT_EQ(evaluate(as_int, Env{}).int_at(0),
              static_cast<int64_t>(static_cast<std::make_signed_t<I>>(bits)))
        << static_cast<double>(v);
    Expr as_float = reinterpret(make_int(static_cast<int64_t>(bits), int_type));
    EXPECT_EQ(as_float.dtype(), float_type);
    expect_same(evaluate(as_float, Env{}).float_at(0), static_cast<double>(v),
                "reinterpret of the bits of " + std::to_string(static_cast<double>(v)));
  }
}

TEST(InterpreterIntrinsics, ReinterpretKeepsTheBits) {
  check_reinterpret<float, int32_t>(DataType::Float(32), DataType::Int(32),
                                    {0.0f, -0.0f, 1.0f, -2.5f, FLT_MIN, FLT_TRUE_MIN, FLT_MAX,
                                     float(kInf), float(-kInf), float(kNaN)});
  check_reinterpret<float, uint32_t>(DataType::Float(32), DataType::UInt(32), {1.5f, -3.0f});
  check_reinterpret<double, int64_t>(DataType::Float(64), DataType::Int(64),
                                     {1.0 / 3, -0.0, DBL_TRUE_MIN, kInf, kNaN});
  check_reinterpret<_Float16, int16_t>(DataType::Float(16), DataType::Int(16),
                                       {_Float16(1.5), _Float16(-0.0), _Float16(65504)});
  // bfloat16 is the high half of a float32.
  EXPECT_EQ(evaluate(reinterpret(make_float(1.5, DataType::BFloat(16))), Env{}).int_at(0), 0x3fc0);
  // Lane by lane.
  Value lanes = evaluate(reinterpret(make_float(-1.0, DataType::Float(32, 4))), Env{});
  EXPECT_EQ(lanes.dtype, DataType::Int(32, 4));
  for (int k = 0; k < 4; ++k) EXPECT_EQ(lanes.int_at(k), static_cast<int32_t>(0xbf800000u));
  EXPECT_THROW(reinterpret(make_bool(true)), CompileError);
  EXPECT_THROW(reinterpret(make_int(1, DataType::Int(8))), CompileError);
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

// Integer intrinsics (abs, fmod, bitwise_and/or/xor/not, shift_left/right) on every
// integer width and signedness and on bool, compiled as scalar and vector loops, against
// C++ on the same values.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>

#include "codegen_test_util.h"
#include "support/error.h"

namespace tessel::codegen::test {
namespace {

template <class T>
DataType type_of() {
  if constexpr (std::is_same_v<T, bool>)
    return DataType::Bool();
  else if constexpr (std::is_signed_v<T>)
    return DataType::Int(8 * sizeof(T));
  else
    return DataType::UInt(8 * sizeof(T));
}

/// The C++ meaning of each integer intrinsic on T (shift amounts are in [0, bits) here or
/// handled explicitly).
template <class T>
T reference(Intrinsic op, T a, T b) {
  using U = std::make_unsigned_t<T>;
  constexpr int bits = 8 * sizeof(T);
  switch (op) {
    case Intrinsic::abs:
      return a < 0 ? static_cast<T>(U(0) - static_cast<U>(a)) : a;
    case Intrinsic::fmod:
      if (std::is_signed_v<T> && b == T(-1)) return 0;
      return static_cast<T>(a % b);
    case Intrinsic::bitwise_and:
      return static_cast<T>(a & b);
    case Intrinsic::bitwise_or:
      return static_cast<T>(a | b);
    case Intrinsic::bitwise_xor:
      return static_cast<T>(a ^ b);
    case Intrinsic::bitwise_not:
      return static_cast<T>(~a);
    case Intrinsic::shift_left:
      if (static_cast<U>(b) >= U(bits)) return 0;
      return static_cast<T>(static_cast<U>(a) << static_cast<int>(b));
    case Intrinsic::shift_right:
      if (std::is_signed_v<T>) return static_cast<T>(a >> std::min<U>(static_cast<U>(b), bits - 1));
      if (static_cast<U>(b) >= U(bits)) return 0;
      return static_cast<T>(a >> static_cast<int>(b));
    default:
      break;
  }
  ADD_FAILURE() << "no reference for " << intrinsic_name(op);
  return 0;
}

/// Random values with the extremes, and second operands suited to `op`.
template <class T>
std::pair<std::vector<T>, std::vector<T>> inputs(Intrinsic op) {
  std::mt19937_64 rng(42);
  constexpr int bits = 8 * sizeof(T);
  std::vector<T> extremes = {0,
                             1,
                             T(-1),
                             2,
                             std::numeric_limits<T>::min(),
                             std::numeric_limits<T>::max(),
                             static_cast<T>(std::numeric_limits<T>::min() + 1),
                             7};
  std::vector<T> a, b;
  for (int k = 0; k < 256; ++k) {
    T x = k < 64 ? extremes[k % 8] : static_cast<T>(rng());
    T y = k < 64 ? extremes[k / 8] : static_cast<T>(rng());
    if (op == Intrinsic::shift_left || op == Intrinsic::shift_right)
      y = k < 200 ? static_cast<T>(rng() % bits)
                  : static_cast<T>(bits + k % 4);  // some out of range
    if (op == Intrinsic::fmod && y == 0) y = 3;
    a.push_back(x);
    b.push_back(y);
  }
  return {a, b};
}

template <class T>
void check_type() {
  DataType t = type_of<T>();
  const Intrinsic ops[] = {Intrinsic::abs,        Intrinsic::fmod,        Intrinsic::bitwise_and,
                           Intrinsic::bitwise_or, Intrinsic::bitwise_xor, Intrinsic::bitwise_not,
                           Intrinsic::shift_left, Intrinsic::shift_right};
  const int lanes = 64 / sizeof(T) < 16 ? 64 / sizeof(T) : 16;
  for (Intrinsic op : ops) {
    SCOPED_TRACE(std::string(intrinsic_name(op)) + " on " + t.to_string());
    auto [a, b] = inputs<T>(op);
    const int64_t n = static_cast<int64_t>(a.size());
    bool binary = intrinsic_arity(op) == 2;
    Buffer A = buffer("A", t, n), B = buffer("B", t, n), S = buffer("S", t, n),
           V = buffer("V", t, n);
    auto body = [&](const Buffer& dst, const Expr& i) {
      std::vector<Expr> args = {load(A, i)};
      if (binary) args.push_back(load(B, i));
      return store(dst, i, make_Call(op, args));
    };
    Var i("i"), v("v");
    JitModule module(
        {PrimFunc{"scalar", {A, B, S}, loop(i, n, body(S, i))},
         PrimFunc{"vector", {A, B, V}, loop(v, n / lanes, body(V, ramp(v * lanes, lanes)))}});
    auto ta = array(a, t), tb = array(b, t), ts = array(std::vector<T>(n), t),
         tv = array(std::vector<T>(n), t);
    ASSERT_EQ(call(module, "scalar", {&ta, &tb, &ts}), 0);
    ASSERT_EQ(call(module, "vector", {&ta, &tb, &tv}), 0);
    for (int64_t k = 0; k < n; ++k) {
      T expected = reference<T>(op, a[k], b[k]);
      EXPECT_EQ(values<T>(ts)[k], expected) << +a[k] << ", " << +b[k];
      EXPECT_EQ(values<T>(tv)[k], expected) << +a[k] << ", " << +b[k] << " (vector)";
    }
  }
}

TEST(IntegerIntrinsics, Int8) {
  check_type<int8_t>();
}
TEST(IntegerIntrinsics, Int16) {
  check_type<int16_t>();
}
TEST(IntegerIntrinsics, Int32) {
  check_type<int32_t>();
}
TEST(IntegerIntrinsics, Int64) {
  check_type<int64_t>();
}
TEST(IntegerIntrinsics, UInt8) {
  check_type<uint8_t>();
}
TEST(IntegerIntrinsics, UInt16) {
  check_type<uint16_t>();
}
TEST(IntegerIntrinsics, UInt32) {
  check_type<uint32_t>();
}
TEST(IntegerIntrinsics, UInt64) {
  check_type<uint64_t>();
}

TEST(IntegerIntrinsics, BitwiseOnBool) {
  DataType b = DataType::Bool();
  std::vector<uint8_t> x = {0, 0, 1, 1, 0, 1, 1, 0}, y = {0, 1, 0, 1, 1, 1, 0, 0};
  Buffer X = buffer("X", b, 8), Y = buffer("Y", b, 8), And = buffer("And", b, 8),
         Or = buffer("Or", b, 8), Xor = buffer("Xor", b, 8), Not = buffer("Not", b, 8);
  for (int lanes : {1, 8}) {
    Var v("v");
    Expr idx = lanes == 1 ? Expr(v) : ramp(v, 8);
    Expr a = load(X, idx), c = load(Y, idx);
    Stmt body = make_Seq({store(And, idx, bitwise_and(a, c)), store(Or, idx, bitwise_or(a, c)),
                          store(Xor, idx, bitwise_xor(a, c)), store(Not, idx, bitwise_not(a))});
    PrimFunc f{"bool_bits", {X, Y, And, Or, Xor, Not}, loop(v, lanes == 1 ? 8 : 1, body)};
    auto tx = array(x, b), ty = array(y, b), t1 = array(std::vector<uint8_t>(8, 9), b),
         t2 = array(std::vector<uint8_t>(8, 9), b), t3 = array(std::vector<uint8_t>(8, 9), b),
         t4 = array(std::vector<uint8_t>(8, 9), b);
    ASSERT_EQ(run(f, {&tx, &ty, &t1, &t2, &t3, &t4}), 0);
    for (int k = 0; k < 8; ++k) {
      EXPECT_EQ(values<uint8_t>(t1)[k], x[k] & y[k]) << k;
      EXPECT_EQ(values<uint8_t>(t2)[k], x[k] | y[k]) << k;
      EXPECT_EQ(values<uint8_t>(t3)[k], x[k] ^ y[k]) << k;
      EXPECT_EQ(values<uint8_t>(t4)[k], 1 - x[k]) << k;  // a 0/1 byte, not 0xfe
    }
  }
}

TEST(IntegerDivision, NeverTrapsOnOverflowOrZero) {
  // INT_MIN / -1 wraps to INT_MIN with remainder 0 (floor division and fmod alike); a zero
  // divisor gives an unspecified value but must not crash the process (x86 idiv traps).
  for (DataType t : {DataType::Int(32), DataType::Int(64), DataType::Int(8)}) {
    SCOPED_TRACE(t.to_string());
    int64_t lo = t.bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (t.bits - 1));
    std::vector<int64_t> a = {lo, lo, 7, -7, 5, lo, 9, 0}, b = {-1, 1, 0, 0, 2, 3, -1, 0};
    Buffer A = buffer("A", DataType::Int(64), 8), B = buffer("B", DataType::Int(64), 8),
           Q = buffer("Q", t, 8), R = buffer("R", t, 8), F = buffer("F", t, 8);
    for (int lanes : {1, 8}) {
      Var v("v");
      Expr idx = lanes == 1 ? Expr(v) : ramp(v, 8);
      Expr x = cast(t, load(A, idx)), y = cast(t, load(B, idx));
      Stmt body = make_Seq({store(Q, idx, x / y), store(R, idx, x % y), store(F, idx, fmod(x, y))});
      PrimFunc f{"div", {A, B, Q, R, F}, loop(v, lanes == 1 ? 8 : 1, body)};
      auto ta = array(a, DataType::Int(64)), tb = array(b, DataType::Int(64));
      runtime::NDArray tq({8}, runtime_dtype(t)), tr({8}, runtime_dtype(t)),
          tf({8}, runtime_dtype(t));
      ASSERT_EQ(run(f, {&ta, &tb, &tq, &tr, &tf}), 0);
      auto get = [&](const runtime::NDArray& arr, int k) {
        int64_t v = 0;
        std::memcpy(&v, static_cast<const char*>(arr.data()) + k * t.bytes(), t.bytes());
        return t.bits == 64 ? v : (v << (64 - t.bits)) >> (64 - t.bits);  // sign-extend
      };
      EXPECT_EQ(get(tq, 0), lo);  // INT_MIN / -1 wraps
      EXPECT_EQ(get(tr, 0), 0);
      EXPECT_EQ(get(tf, 0), 0);
      EXPECT_EQ(get(tq, 6), -9);
      EXPECT_EQ(get(tq, 5), lo / 3 - (lo % 3 != 0 ? 1 : 0));  // floor
      EXPECT_EQ(get(tf, 5), lo % 3);                          // truncated
      EXPECT_EQ(get(tq, 4), 2);
    }
  }
}

TEST(IntegerIntrinsics, BuildersCheckTypes) {
  Expr f = Var("f", DataType::Float(32)), i = Var("i", DataType::Int(32)),
       b = Var("b", DataType::Bool());
  EXPECT_THROW(bitwise_and(f, f), CompileError);
  EXPECT_THROW(shift_left(b, b), CompileError);
  EXPECT_THROW(is_nan(i), CompileError);
  EXPECT_THROW(sin(i), CompileError);
  EXPECT_EQ(is_nan(f).dtype(), DataType::Bool());
  EXPECT_EQ(shift_right(i, 2).dtype(), DataType::Int(32));
  EXPECT_EQ(fmod(i, 2).dtype(), DataType::Int(32));
  EXPECT_EQ(fmod(f, 2.0f).dtype(), DataType::Float(32));
  EXPECT_EQ(bitwise_not(b).dtype(), DataType::Bool());
}

}  // namespace
}  // namespace tessel::codegen::test

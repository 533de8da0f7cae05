// End to end over every element type: arithmetic, comparisons, select, min / max and casts
// between all pairs of types, built from tensor expressions with scalar and vectorized
// schedules, JIT-compiled and compared with the same operations in C++.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "e2e_test_util.h"

namespace tessel::e2e_test {
namespace {

using ir::Expr;

constexpr int64_t kN = 37;  // not a multiple of any vector width
constexpr Sched kScheds[] = {Sched::Plain, Sched::Vector8, Sched::Vector16};

/// Two's complement wrapping arithmetic (signed overflow is undefined in C++).
template <class T>
T wrap(uint64_t v) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(v));
}

template <class T>
T floor_div(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return a / b;
  else if constexpr (std::is_unsigned_v<T>)
    return a / b;
  else {
    T q = static_cast<T>(a / b);
    if (a % b != 0 && ((a < 0) != (b < 0))) --q;
    return q;
  }
}

template <class T>
T floor_mod(T a, T b) {
  if constexpr (std::is_unsigned_v<T>)
    return a % b;
  else
    return static_cast<T>(a - floor_div(a, b) * b);
}

/// Random values of T: full range for integers, [-100, 100] for floats. `nonzero` for
/// divisors (and small, so that INT_MIN / -1 does not arise).
template <class T>
std::vector<T> random_values(uint64_t seed, bool nonzero) {
  std::mt19937_64 rng(seed);
  std::vector<T> v;
  for (int64_t k = 0; k < kN; ++k) {
    if constexpr (std::is_floating_point_v<T>) {
      double x = std::uniform_real_distribution<double>(-100, 100)(rng);
      v.push_back(static_cast<T>(k % 5 == 0 ? std::round(x) : x));  // some ties
    } else if (nonzero) {
      T x = static_cast<T>(1 + rng() % 9);
      if (std::is_signed_v<T> && rng() % 2) x = static_cast<T>(-x);
      v.push_back(x);
    } else {
      v.push_back(k < 4 ? (k % 2 ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max())
                        : static_cast<T>(rng()));
    }
  }
  v[5] = v[6] = v[7] = T(3);  // equal neighbours for == and select ties
  return v;
}

template <class T>
using BinaryRef = std::function<T(T, T)>;

/// out[i] = body(a[i], b[i]) for each schedule, compared with ref.
template <class T, class R>
void check_binary(const char* name, const std::function<Expr(Expr, Expr)>& body,
                  const std::function<R(T, T)>& ref, bool divisor) {
  ir::DataType t = dtype_of<T>();
  std::vector<T> a = random_values<T>(1, false), b = random_values<T>(2, divisor);
  if (divisor && std::is_floating_point_v<T>)
    for (T& x : b) x = x == T(0) ? T(1) : x;
  te::Tensor A = te::placeholder({kN}, t, "A"), B = te::placeholder({kN}, t, "B");
  te::Tensor out = elementwise(
      {A, B}, [&](const std::vector<Expr>& x) { return body(x[0], x[1]); }, "out");
  for (Sched sched : kScheds) {
    SCOPED_TRACE(std::string(name) + " on " + t.to_string() + ", " + sched_name(sched));
    auto ta = array_of({kN}, a), tb = array_of({kN}, b);
    auto to = array_of({kN}, std::vector<R>(kN, R(1)));
    build_and_run(out, {A, B}, sched, {&ta, &tb, &to});
    for (int64_t k = 0; k < kN; ++k) {
      R expected = ref(a[k], b[k]);
      if constexpr (std::is_same_v<R, bool>) {
        EXPECT_EQ(bytes_of(to)[k], expected ? 1 : 0) << +a[k] << ", " << +b[k];
      } else if constexpr (std::is_floating_point_v<R>) {
        // Division may be a reciprocal multiply: within an ulp.
        EXPECT_NEAR(values_of<R>(to)[k], expected,
                    std::fabs(expected) * std::numeric_limits<R>::epsilon())
            << +a[k] << ", " << +b[k];
      } else {
        EXPECT_EQ(values_of<R>(to)[k], expected) << +a[k] << ", " << +b[k];
      }
    }
  }
}

template <class T>
void check_arithmetic() {
  using E = std::function<Expr(Expr, Expr)>;
  using F = std::function<T(T, T)>;
  using C = std::function<bool(T, T)>;
  constexpr bool is_float = std::is_floating_point_v<T>;
  auto add = [](T a, T b) {
    if constexpr (is_float)
      return static_cast<T>(a + b);
    else
      return wrap<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  };
  auto sub = [](T a, T b) {
    if constexpr (is_float)
      return static_cast<T>(a - b);
    else
      return wrap<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
  };
  auto mul = [](T a, T b) {
    if constexpr (is_float)
      return static_cast<T>(a * b);
    else
      return wrap<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  };
  check_binary<T, T>("add", E([](Expr a, Expr b) { return a + b; }), F(add), false);
  check_binary<T, T>("sub", E([](Expr a, Expr b) { return a - b; }), F(sub), false);
  check_binary<T, T>("mul", E([](Expr a, Expr b) { return a * b; }), F(mul), false);
  check_binary<T, T>("div", E([](Expr a, Expr b) { return a / b; }), F(floor_div<T>), true);
  if constexpr (!is_float)
    check_binary<T, T>("mod", E([](Expr a, Expr b) { return a % b; }), F(floor_mod<T>), true);
  check_binary<T, T>("min", E([](Expr a, Expr b) { return ir::min(a, b); }),
                     F([](T a, T b) { return std::min(a, b); }), false);
  check_binary<T, T>("max", E([](Expr a, Expr b) { return ir::max(a, b); }),
                     F([](T a, T b) { return std::max(a, b); }), false);
  check_binary<T, T>("select", E([](Expr a, Expr b) { return ir::select(a < b, b, a); }),
                     F([](T a, T b) { return a < b ? b : a; }), false);
  check_binary<T, bool>("lt", E([](Expr a, Expr b) { return a < b; }), C(std::less<T>()), false);
  check_binary<T, bool>("le", E([](Expr a, Expr b) { return a <= b; }), C(std::less_equal<T>()),
                        false);
  check_binary<T, bool>("gt", E([](Expr a, Expr b) { return a > b; }), C(std::greater<T>()), false);
  check_binary<T, bool>("ge", E([](Expr a, Expr b) { return a >= b; }), C(std::greater_equal<T>()),
                        false);
  check_binary<T, bool>("eq", E([](Expr a, Expr b) { return a == b; }), C(std::equal_to<T>()),
                        false);
  check_binary<T, bool>("ne", E([](Expr a, Expr b) { return a != b; }), C(std::not_equal_to<T>()),
                        false);
}

TEST(DtypeE2E, Float64Arithmetic) {
  check_arithmetic<double>();
}
TEST(DtypeE2E, Float32Arithmetic) {
  check_arithmetic<float>();
}
TEST(DtypeE2E, Int8Arithmetic) {
  check_arithmetic<int8_t>();
}
TEST(DtypeE2E, Int16Arithmetic) {
  check_arithmetic<int16_t>();
}
TEST(DtypeE2E, Int32Arithmetic) {
  check_arithmetic<int32_t>();
}
TEST(DtypeE2E, Int64Arithmetic) {
  check_arithmetic<int64_t>();
}
TEST(DtypeE2E, UInt8Arithmetic) {
  check_arithmetic<uint8_t>();
}
TEST(DtypeE2E, UInt16Arithmetic) {
  check_arithmetic<uint16_t>();
}
TEST(DtypeE2E, UInt32Arithmetic) {
  check_arithmetic<uint32_t>();
}
TEST(DtypeE2E, UInt64Arithmetic) {
  check_arithmetic<uint64_t>();
}

TEST(DtypeE2E, BoolLogicSelectAndComparisons) {
  std::vector<bool> a, b;
  for (int64_t k = 0; k < kN; ++k) a.push_back(k % 2), b.push_back(k % 3 == 0);
  std::vector<uint8_t> a8(a.begin(), a.end()), b8(b.begin(), b.end());
  ir::DataType t = ir::DataType::Bool();
  te::Tensor A = te::placeholder({kN}, t, "A"), B = te::placeholder({kN}, t, "B");
  struct Case {
    const char* name;
    std::function<Expr(Expr, Expr)> body;
    std::function<bool(bool, bool)> ref;
  };
  const Case cases[] = {
      {"and", [](Expr x, Expr y) { return x && y; }, [](bool x, bool y) { return x && y; }},
      {"or", [](Expr x, Expr y) { return x || y; }, [](bool x, bool y) { return x || y; }},
      {"nand", [](Expr x, Expr y) { return !(x && y); }, [](bool x, bool y) { return !(x && y); }},
      {"xor", [](Expr x, Expr y) { return x != y; }, [](bool x, bool y) { return x != y; }},
      {"eq", [](Expr x, Expr y) { return x == y; }, [](bool x, bool y) { return x == y; }},
      {"lt", [](Expr x, Expr y) { return x < y; }, [](bool x, bool y) { return x < y; }},
      {"select", [](Expr x, Expr y) { return ir::select(x, y, !y); },
       [](bool x, bool y) { return x ? y : !y; }},
      {"max", [](Expr x, Expr y) { return ir::max(x, y); }, [](bool x, bool y) { return x || y; }},
  };
  for (const Case& c : cases) {
    te::Tensor out = elementwise(
        {A, B}, [&](const std::vector<Expr>& x) { return c.body(x[0], x[1]); }, "out");
    for (Sched sched : kScheds) {
      SCOPED_TRACE(std::string(c.name) + ", " + sched_name(sched));
      auto ta = array_of({kN}, a8), tb = array_of({kN}, b8);
      auto to = array_of({kN}, std::vector<uint8_t>(kN, 7));
      build_and_run(out, {A, B}, sched, {&ta, &tb, &to});
      for (int64_t k = 0; k < kN; ++k)
        EXPECT_EQ(bytes_of(to)[k], c.ref(a[k], b[k]) ? 1 : 0) << a[k] << ", " << b[k];
    }
  }
}

TEST(DtypeE2E, BoolLoadsReadNonCanonicalBytesAsTheirLowBit) {
  // Memory written by tessel holds 0/1; loads use the low bit of the byte (as LLVM's
  // trunc does), and stores of comparisons write exactly 0 or 1.
  ir::DataType t = ir::DataType::Bool();
  te::Tensor A = te::placeholder({8}, t, "A");
  te::Tensor out = elementwise(
      {A}, [](const std::vector<Expr>& x) { return ir::cast(ir::DataType::Int(32), x[0]); }, "out");
  auto ta = array_of<uint8_t>({8}, {0, 1, 1, 0, 1, 0, 0, 1});
  auto to = array_of({8}, std::vector<int32_t>(8, -5));
  build_and_run(out, {A}, Sched::Vector8, {&ta, &to});
  EXPECT_EQ(values_of<int32_t>(to), (std::vector<int32_t>{0, 1, 1, 0, 1, 0, 0, 1}));
}

// ---- casts between every pair of types -------------------------------------------------

/// Values to try, as doubles; each type keeps those it represents (integers) or rounds.
const double kCastSources[] = {
    0,      1,     -1,    2.5,   -2.5,  0.49,   -0.49, 7.75,         100.75,        -100.75,
    127,    -128,  128,   200,   255,   256,    -129,  1000.5,       -1000.5,       32767,
    -32768, 40000, 65504, 65535, 70000, -70000, 1e6,   2147483647.0, -2147483648.0, 3e9,
    1e12,   -1e12, 1e19,  0.1};

template <class T>
constexpr bool is_float_v = std::is_floating_point_v<T> || std::is_same_v<T, _Float16>;

/// The source values of type F: integers are taken when representable, plus the
/// two's complement wrap-around extremes; floats are rounded, plus inf and NaN
/// (kept only when converting to a float or bool, where they are defined).
template <class F, class T>
std::vector<F> cast_sources() {
  std::vector<F> out;
  for (double d : kCastSources) {
    if constexpr (std::is_same_v<F, bool>) {
      out.push_back(d != 0);
    } else if constexpr (is_float_v<F>) {
      out.push_back(static_cast<F>(d));
    } else {
      if (d != std::floor(d)) continue;
      if (d < static_cast<double>(std::numeric_limits<F>::min()) ||
          d > static_cast<double>(std::numeric_limits<F>::max()))
        continue;
      out.push_back(static_cast<F>(d));
    }
  }
  if constexpr (!std::is_same_v<F, bool> && !is_float_v<F>) {
    out.push_back(std::numeric_limits<F>::min());
    out.push_back(std::numeric_limits<F>::max());
  }
  if constexpr (is_float_v<F> && (is_float_v<T> || std::is_same_v<T, bool>)) {
    out.push_back(std::numeric_limits<F>::infinity());
    out.push_back(-std::numeric_limits<F>::infinity());
    out.push_back(std::numeric_limits<F>::quiet_NaN());
  }
  return out;
}

/// Whether converting x to T is defined (float to integer: the truncated value fits).
template <class F, class T>
bool cast_defined(F x) {
  if constexpr (is_float_v<F> && !is_float_v<T> && !std::is_same_v<T, bool>) {
    double t = std::trunc(static_cast<double>(x));
    return t >= static_cast<double>(std::numeric_limits<T>::min()) &&
           t <= static_cast<double>(std::numeric_limits<T>::max()) &&
           !(sizeof(T) == 8 && t >= 9.2e18);
  }
  return true;
}

template <class T>
bool same_value(T a, T b) {
  if constexpr (is_float_v<T>) {
    if (a != a) return b != b;
  }
  return a == b;
}

/// Builds out = cast(to, in) and runs it on the arrays (not a template: one copy of the
/// build code for all type pairs).
void run_cast(ir::DataType from, ir::DataType to, Sched sched, runtime::NDArray& in,
              runtime::NDArray& out) {
  te::Tensor A = te::placeholder({in.size()}, from, "A");
  te::Tensor cast = elementwise(
      {A}, [&](const std::vector<Expr>& x) { return ir::cast(to, x[0]); }, "out");
  build_and_run(cast, {A}, sched, {&in, &out});
}

template <class F, class T>
void check_cast() {
  ir::DataType from = dtype_of<F>(), to = dtype_of<T>();
  std::vector<F> xs;
  for (F x : cast_sources<F, T>())
    if (cast_defined<F, T>(x)) xs.push_back(x);
  const int64_t n = static_cast<int64_t>(xs.size());
  for (Sched sched : {Sched::Plain, Sched::Vector8}) {
    SCOPED_TRACE(from.to_string() + " -> " + to.to_string() + ", " + sched_name(sched));
    auto in = array_of({n}, xs);
    auto out = array_of({n}, std::vector<T>(n, T(1)));
    run_cast(from, to, sched, in, out);
    for (int64_t k = 0; k < n; ++k) {
      if constexpr (std::is_same_v<T, bool>) {
        bool expected = xs[k] != F(0) || xs[k] != xs[k];
        EXPECT_EQ(bytes_of(out)[k], expected ? 1 : 0) << static_cast<double>(xs[k]);
      } else {
        T expected = static_cast<T>(xs[k]), got = values_of<T>(out)[k];
        EXPECT_TRUE(same_value(got, expected))
            << static_cast<double>(xs[k]) << " gave " << static_cast<double>(got) << ", expected "
            << static_cast<double>(expected);
      }
    }
  }
}

template <class... Ts>
struct TypeList {};
using AllTypes = TypeList<_Float16, float, double, int8_t, int16_t, int32_t, int64_t, uint8_t,
                          uint16_t, uint32_t, uint64_t, bool>;

template <class F, class... Ts>
void check_casts_from(TypeList<Ts...>) {
  (check_cast<F, Ts>(), ...);
}

template <class... Fs>
void check_all_casts(TypeList<Fs...> all) {
  (check_casts_from<Fs>(all), ...);
}

TEST(DtypeE2E, CastsBetweenEveryPairOfTypes) {
  check_all_casts(AllTypes{});
}

// ---- float16 --------------------------------------------------------------------------

TEST(DtypeE2E, Float16ArithmeticDirectAndThroughFloat32) {
  ir::DataType f16 = ir::DataType::Float(16), f32 = ir::DataType::Float(32);
  std::vector<_Float16> a, b;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-30, 30);
  for (int64_t k = 0; k < kN; ++k)
    a.push_back(static_cast<_Float16>(dist(rng))), b.push_back(static_cast<_Float16>(dist(rng)));
  te::Tensor A = te::placeholder({kN}, f16, "A"), B = te::placeholder({kN}, f16, "B");
  te::Tensor direct = elementwise(
      {A, B}, [](const std::vector<Expr>& v) { return v[0] * v[1] + v[0]; }, "direct");
  te::Tensor widened = elementwise(
      {A, B},
      [&](const std::vector<Expr>& v) {
        Expr x = ir::cast(f32, v[0]), y = ir::cast(f32, v[1]);
        return ir::cast(f16, ir::select(x < y, ir::exp(x / 10.0f) * y, ir::max(x, y) - 1.0f));
      },
      "widened");
  for (Sched sched : kScheds) {
    SCOPED_TRACE(sched_name(sched));
    auto ta = array_of({kN}, a), tb = array_of({kN}, b);
    auto td = array_of({kN}, std::vector<_Float16>(kN)),
         tw = array_of({kN}, std::vector<_Float16>(kN));
    build_and_run(direct, {A, B}, sched, {&ta, &tb, &td});
    build_and_run(widened, {A, B}, sched, {&ta, &tb, &tw});
    for (int64_t k = 0; k < kN; ++k) {
      // Each half operation rounds once (a*b then + a; with FMA contraction the product
      // is not rounded: allow one half ulp of the result).
      _Float16 prod = static_cast<_Float16>(static_cast<float>(a[k]) * static_cast<float>(b[k]));
      float expected = static_cast<float>(
          static_cast<_Float16>(static_cast<float>(prod) + static_cast<float>(a[k])));
      EXPECT_NEAR(static_cast<float>(values_of<_Float16>(td)[k]), expected,
                  std::fabs(expected) * 1e-3f);
      float x = static_cast<float>(a[k]), y = static_cast<float>(b[k]);
      float w = x < y ? std::exp(x / 10.0f) * y : std::max(x, y) - 1.0f;
      EXPECT_NEAR(static_cast<float>(values_of<_Float16>(tw)[k]),
                  static_cast<float>(static_cast<_Float16>(w)), std::fabs(w) * 1e-3f);
    }
  }
}

}  // namespace
}  // namespace tessel::e2e_test

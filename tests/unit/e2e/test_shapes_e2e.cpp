// End to end over unusual shapes: rank-0 tensors, zero-size dimensions (kernels run and do
// nothing), reductions over empty axes (the identity), and vectorized loops over float64
// and integer types, compared with C++.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "e2e_test_util.h"

namespace tessel::e2e_test {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;

TEST(ShapeE2E, RankZeroTensors) {
  DataType f32 = DataType::Float(32);
  te::Tensor a = te::placeholder({}, f32, "a"), b = te::placeholder({}, f32, "b");
  te::Tensor c = te::compute(
      {}, [&](const std::vector<Var>&) { return a({}) * 2.0f + b({}); }, "c");
  auto ta = array_of<float>({}, {1.5f}), tb = array_of<float>({}, {-4.0f});
  auto tc = array_of<float>({}, {99.0f});
  for (Sched sched : {Sched::Plain, Sched::Vector8}) {
    build_and_run(c, {a, b}, sched, {&ta, &tb, &tc});
    EXPECT_EQ(values_of<float>(tc), std::vector<float>{-1.0f});
  }
  // A rank-0 tensor broadcast into a vector, and a vector summed into a rank-0 tensor.
  te::Tensor x = te::placeholder({5}, f32, "x");
  te::Tensor scaled = te::compute(
      {5}, [&](Var i) { return x(i) * a({}); }, "scaled");
  te::IterVar k = te::reduce_axis(5, "k");
  te::Tensor total = te::compute(
      {}, [&](const std::vector<Var>&) { return te::sum(x(k.var), {k}); }, "total");
  auto tx = array_of<float>({5}, {1, 2, 3, 4, 5});
  auto ts = array_of({5}, std::vector<float>(5)), tt = array_of<float>({}, {0.0f});
  build_and_run(scaled, {x, a}, Sched::Plain, {&tx, &ta, &ts});
  build_and_run(total, {x}, Sched::Plain, {&tx, &tt});
  EXPECT_EQ(values_of<float>(ts), (std::vector<float>{1.5f, 3, 4.5f, 6, 7.5f}));
  EXPECT_EQ(values_of<float>(tt), std::vector<float>{15.0f});
}

TEST(ShapeE2E, RankZeroOfEveryIntegerWidthAndBool) {
  auto check = [](auto value) {
    using T = decltype(value);
    DataType t = dtype_of<T>();
    te::Tensor a = te::placeholder({}, t, "a");
    te::Tensor c = te::compute(
        {},
        [&](const std::vector<Var>&) {
          return t.is_bool() ? !a({}) : a({}) + ir::make_const(t, 1);
        },
        "c");
    auto ta = array_of<T>({}, {value}), tc = array_of<T>({}, {T(0)});
    build_and_run(c, {a}, Sched::Plain, {&ta, &tc});
    if constexpr (std::is_same_v<T, bool>)
      EXPECT_EQ(bytes_of(tc)[0], value ? 0 : 1);
    else
      EXPECT_EQ(values_of<T>(tc)[0], static_cast<T>(value + 1)) << t.to_string();
  };
  check(int8_t{-5});
  check(int64_t{1} << 40);
  check(uint16_t{65534});
  check(double{2.25});
  check(true);
}

TEST(ShapeE2E, ZeroSizeDimensionsRunAndDoNothing) {
  DataType f32 = DataType::Float(32);
  for (std::vector<int64_t> shape : {std::vector<int64_t>{0}, std::vector<int64_t>{0, 3},
                                     std::vector<int64_t>{4, 0}, std::vector<int64_t>{2, 0, 5}}) {
    std::vector<Expr> dims(shape.begin(), shape.end());
    te::Tensor a = te::placeholder(dims, f32, "a");
    te::Tensor b = te::compute(
        dims,
        [&](const std::vector<Var>& i) {
          std::vector<Expr> idx(i.begin(), i.end());
          return ir::exp(a(idx)) + 1.0f;
        },
        "b");
    for (Sched sched : {Sched::Plain, Sched::Vector8}) {
      SCOPED_TRACE(std::to_string(shape.size()) + "-d, " + sched_name(sched));
      runtime::NDArray ta(shape, runtime::DType::Float(32)), tb(shape, runtime::DType::Float(32));
      build_and_run(b, {a}, sched, {&ta, &tb});
      EXPECT_EQ(tb.size(), 0);
    }
  }
}

TEST(ShapeE2E, ZeroSizeParallelLoops) {
  // Parallel outer loops with zero iterations, or over zero-size rows.
  DataType f32 = DataType::Float(32);
  for (std::vector<int64_t> shape : {std::vector<int64_t>{0, 64}, std::vector<int64_t>{64, 0}}) {
    std::vector<Expr> dims(shape.begin(), shape.end());
    te::Tensor a = te::placeholder(dims, f32, "a");
    te::Tensor b = te::compute(
        dims, [&](Var i, Var j) { return a(i, j) * 2.0f; }, "b");
    schedule::Schedule s({b});
    s.parallel(b, s.stage(b).roots[0]);
    driver::Kernel kernel = driver::build(s, {a, b}, "zero_parallel");
    runtime::NDArray ta(shape, runtime::DType::Float(32)), tb(shape, runtime::DType::Float(32));
    kernel.run({ta.data(), tb.data()});
    EXPECT_EQ(tb.size(), 0);
  }
}

template <class T>
void check_empty_reductions() {
  DataType t = dtype_of<T>();
  te::Tensor a = te::placeholder({3, 0}, t, "a");
  te::IterVar k = te::reduce_axis(0, "k");
  struct Case {
    const char* name;
    Expr (*reduce)(Expr, std::vector<ir::IterVar>, Expr);
    T identity;
  };
  const T lowest = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                        : std::numeric_limits<T>::lowest();
  const T highest = std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                         : std::numeric_limits<T>::max();
  const Case cases[] = {{"sum", te::sum, T(0)},
                        {"prod", te::prod, T(1)},
                        {"min", te::min_reduce, highest},
                        {"max", te::max_reduce, lowest}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.name) + " over an empty axis, " + t.to_string());
    te::Tensor r = te::compute(
        {3}, [&](Var i) { return c.reduce(a(i, k.var), {k}, nullptr); }, c.name);
    runtime::NDArray ta({3, 0}, runtime_dtype(t));
    auto tr = array_of({3}, std::vector<T>(3, T(7)));
    build_and_run(r, {a}, Sched::Plain, {&ta, &tr});
    EXPECT_EQ(values_of<T>(tr), std::vector<T>(3, c.identity));
  }
}

TEST(ShapeE2E, EmptyReductionsGiveTheIdentityFloat32) {
  check_empty_reductions<float>();
}
TEST(ShapeE2E, EmptyReductionsGiveTheIdentityFloat64) {
  check_empty_reductions<double>();
}
TEST(ShapeE2E, EmptyReductionsGiveTheIdentityInt32) {
  check_empty_reductions<int32_t>();
}
TEST(ShapeE2E, EmptyReductionsGiveTheIdentityUInt8) {
  check_empty_reductions<uint8_t>();
}
TEST(ShapeE2E, EmptyReductionsGiveTheIdentityInt64) {
  check_empty_reductions<int64_t>();
}

TEST(ShapeE2E, ReductionOverASymbolicallyEmptyRangeWithCondition) {
  // A conditional sum whose condition never holds also gives the identity.
  DataType f64 = DataType::Float(64);
  te::Tensor a = te::placeholder({4, 6}, f64, "a");
  te::IterVar k = te::reduce_axis(6, "k");
  te::Tensor r = te::compute(
      {4}, [&](Var i) { return te::sum(a(i, k.var), {k}, k.var > 10); }, "r");
  auto ta = array_of({4, 6}, std::vector<double>(24, 1.0));
  auto tr = array_of({4}, std::vector<double>(4, 5.0));
  build_and_run(r, {a}, Sched::Plain, {&ta, &tr});
  EXPECT_EQ(values_of<double>(tr), std::vector<double>(4, 0.0));
}

template <class T>
void check_vectorized_rows() {
  // out[i, j] = a[i, j] * 3 + b[j] - (a[i, j] > b[j] ? 1 : 0), rows of 45 (not a multiple
  // of the vector width), vectorized by 8 and 16.
  DataType t = dtype_of<T>();
  const int64_t rows = 3, cols = 45;
  std::vector<T> a, b;
  for (int64_t k = 0; k < rows * cols; ++k) a.push_back(static_cast<T>((k * 37) % 101 - 50));
  for (int64_t k = 0; k < cols; ++k) b.push_back(static_cast<T>((k * 11) % 23));
  te::Tensor A = te::placeholder({rows, cols}, t, "A"), B = te::placeholder({cols}, t, "B");
  te::Tensor out = te::compute(
      {rows, cols},
      [&](Var i, Var j) {
        return A(i, j) * ir::make_const(t, 3) + B(j) -
               ir::select(A(i, j) > B(j), ir::make_const(t, 1), ir::make_const(t, 0));
      },
      "out");
  for (Sched sched : {Sched::Vector8, Sched::Vector16}) {
    SCOPED_TRACE(t.to_string() + ", " + sched_name(sched));
    auto ta = array_of({rows, cols}, a), tb = array_of({cols}, b);
    auto to = array_of({rows, cols}, std::vector<T>(rows * cols));
    build_and_run(out, {A, B}, sched, {&ta, &tb, &to});
    std::vector<T> got = values_of<T>(to);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        T x = a[i * cols + j], y = b[j];
        T expected = static_cast<T>(static_cast<T>(x * T(3) + y) - (x > y ? T(1) : T(0)));
        EXPECT_EQ(got[i * cols + j], expected) << i << ", " << j;
      }
  }
}

TEST(ShapeE2E, VectorizedRowsFloat64) {
  check_vectorized_rows<double>();
}
TEST(ShapeE2E, VectorizedRowsInt8) {
  check_vectorized_rows<int8_t>();
}
TEST(ShapeE2E, VectorizedRowsInt16) {
  check_vectorized_rows<int16_t>();
}
TEST(ShapeE2E, VectorizedRowsInt32) {
  check_vectorized_rows<int32_t>();
}
TEST(ShapeE2E, VectorizedRowsInt64) {
  check_vectorized_rows<int64_t>();
}
TEST(ShapeE2E, VectorizedRowsUInt8) {
  check_vectorized_rows<uint8_t>();
}
TEST(ShapeE2E, VectorizedRowsUInt64) {
  check_vectorized_rows<uint64_t>();
}

}  // namespace
}  // namespace tessel::e2e_test

// Tests of the loop IR interpreter against values computed directly in C++.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ir/interpreter.h"
#include "support/error.h"

namespace tessel::ir {
namespace {

int64_t eval_int(const Expr& e, const Env& env = {}) {
  Value v = evaluate(e, env);
  EXPECT_EQ(v.lanes.size(), 1u);
  return v.int_at(0);
}

double eval_float(const Expr& e, const Env& env = {}) {
  return evaluate(e, env).float_at(0);
}

/// Expects `fn` to throw E with a message containing `text`.
template <class E, class Fn>
void expect_error(Fn&& fn, const std::string& text) {
  try {
    fn();
    FAIL() << "expected an error containing '" << text << "'";
  } catch (const E& err) {
    EXPECT_NE(std::string(err.what()).find(text), std::string::npos) << err.what();
  }
}

TEST(Interpreter, FloorDivisionAndModulo) {
  for (int64_t a = -9; a <= 9; ++a) {
    for (int64_t b : {-4, -3, -1, 1, 2, 5}) {
      int64_t q = static_cast<int64_t>(std::floor(static_cast<double>(a) / b));
      EXPECT_EQ(eval_int(make_int(a) / make_int(b)), q) << a << " / " << b;
      EXPECT_EQ(eval_int(make_int(a) % make_int(b)), a - q * b) << a << " % " << b;
    }
  }
  EXPECT_EQ(eval_int(make_int(-7) / make_int(2)), -4);
  EXPECT_EQ(eval_int(make_int(-7) % make_int(2)), 1);
  EXPECT_EQ(eval_int(make_int(7) % make_int(-2)), -1);
}

TEST(Interpreter, IntegerArithmeticWrapsAtTypeWidth) {
  EXPECT_EQ(eval_int(make_int(127, DataType::Int(8)) + make_int(1, DataType::Int(8))), -128);
  EXPECT_EQ(eval_int(make_int(0, DataType::UInt(8)) - make_int(1, DataType::UInt(8))), 255);
  EXPECT_EQ(eval_int(make_int(1 << 30, DataType::Int(32)) * make_int(4, DataType::Int(32))), 0);
  int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(eval_int(make_int(big) + make_int(1)), std::numeric_limits<int64_t>::min());
  // uint32 division is unsigned: 0xffffffff / 2.
  Expr u = make_int(0xffffffffLL, DataType::UInt(32));
  EXPECT_EQ(eval_int(u / make_int(2, DataType::UInt(32))), 0x7fffffffLL);
  EXPECT_EQ(eval_int(make_Min(make_int(-1, DataType::UInt(64)), make_int(3, DataType::UInt(64)))),
            3);
}

TEST(Interpreter, Float32ArithmeticIsRoundedToFloat) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  for (int i = 0; i < 200; ++i) {
    float a = dist(rng), b = dist(rng), c = dist(rng);
    Expr e = (make_float(a) + make_float(b)) * make_float(c) / make_float(b);
    float expected = (a + b) * c / b;
    EXPECT_EQ(eval_float(e), static_cast<double>(expected));
  }
  // float64 keeps double precision.
  Expr d = make_float(0.1, DataType::Float(64)) + make_float(0.2, DataType::Float(64));
  EXPECT_EQ(eval_float(d), 0.1 + 0.2);
}

TEST(Interpreter, ComparisonsLogicAndSelect) {
  Expr three = make_int(3), four = make_int(4);
  EXPECT_EQ(eval_int(three < four), 1);
  EXPECT_EQ(eval_int(three >= four), 0);
  EXPECT_EQ(eval_int(three != four && !(three == four)), 1);
  EXPECT_EQ(eval_int(three > four || three <= four), 1);
  EXPECT_EQ(eval_int(select(three < four, make_int(10), make_int(20))), 10);
  EXPECT_EQ(
      eval_float(select(make_float(1.0f) > make_float(2.0f), make_float(1.0f), make_float(2.0f))),
      2.0);
  // Vector condition: lanes choose independently.
  Expr r = make_Ramp(make_int(0), make_int(1), 4);
  Value v = evaluate(select(r < make_Broadcast(make_int(2), 4), r, make_Broadcast(make_int(-1), 4)),
                     Env{});
  ASSERT_EQ(v.lanes.size(), 4u);
  EXPECT_EQ(v.int_at(0), 0);
  EXPECT_EQ(v.int_at(1), 1);
  EXPECT_EQ(v.int_at(2), -1);
  EXPECT_EQ(v.int_at(3), -1);
}

TEST(Interpreter, Casts) {
  EXPECT_EQ(eval_int(cast(DataType::Int(32), make_float(-2.7f))), -2);
  EXPECT_EQ(eval_int(cast(DataType::Int(32), make_float(2.7f))), 2);
  EXPECT_EQ(eval_int(cast(DataType::Int(8), make_int(300))), 300 - 256);
  EXPECT_EQ(eval_int(cast(DataType::UInt(8), make_int(-1))), 255);
  EXPECT_EQ(eval_int(cast(DataType::Bool(), make_float(0.5f))), 1);
  EXPECT_EQ(eval_int(cast(DataType::Bool(), make_int(0))), 0);
  EXPECT_EQ(eval_float(cast(DataType::Float(32), make_int(16777217))),
            static_cast<double>(static_cast<float>(16777217)));
  EXPECT_EQ(eval_float(cast(DataType::Float(32), make_float(0.1, DataType::Float(64)))),
            static_cast<double>(0.1f));
  expect_error<CompileError>([] { eval_int(cast(DataType::Int(8), make_float(200.0f))); },
                             "out of range");
  expect_error<CompileError>([] { eval_int(cast(DataType::Int(32), make_float(std::nanf("")))); },
                             "out of range");
}

TEST(Interpreter, Intrinsics) {
  for (float x : {0.25f, 1.5f, 3.0f}) {
    EXPECT_EQ(eval_float(exp(make_float(x))), static_cast<double>(std::exp(x)));
    EXPECT_EQ(eval_float(log(make_float(x))), static_cast<double>(std::log(x)));
    EXPECT_EQ(eval_float(sqrt(make_float(x))), static_cast<double>(std::sqrt(x)));
    EXPECT_EQ(eval_float(rsqrt(make_float(x))), static_cast<double>(1.0f / std::sqrt(x)));
    EXPECT_EQ(eval_float(tanh(make_float(-x))), static_cast<double>(std::tanh(-x)));
    EXPECT_EQ(eval_float(sigmoid(make_float(x))),
              static_cast<double>(1.0f / (1.0f + std::exp(-x))));
    EXPECT_EQ(eval_float(erf(make_float(x))), static_cast<double>(std::erf(x)));
    EXPECT_EQ(eval_float(pow(make_float(x), make_float(1.7f))),
              static_cast<double>(std::pow(x, 1.7f)));
  }
  EXPECT_EQ(eval_float(abs(make_float(-2.5f))), 2.5);
  EXPECT_EQ(eval_int(abs(make_int(-5))), 5);
  EXPECT_EQ(eval_float(floor(make_float(-2.5f))), -3.0);
  EXPECT_EQ(eval_float(ceil(make_float(-2.5f))), -2.0);
  EXPECT_EQ(eval_float(round(make_float(2.5f))), 2.0);  // half to even
  EXPECT_EQ(eval_float(round(make_float(3.5f))), 4.0);
  EXPECT_EQ(eval_float(trunc(make_float(-2.5f))), -2.0);
}

TEST(Interpreter, VariablesLetsRampsAndBroadcasts) {
  Var x("x");
  Env env;
  env.bind(x, Value::from_int(DataType::Index(), 5));
  EXPECT_EQ(eval_int(x * make_int(3) + make_int(1), env), 16);
  Var y("y");
  EXPECT_EQ(eval_int(make_Let(y, x + make_int(1), y * y), env), 36);
  Value ramp = evaluate(make_Ramp(x, make_int(3), 4) + make_Broadcast(make_int(1), 4), env);
  ASSERT_EQ(ramp.lanes.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ramp.int_at(i), 5 + 3 * i + 1);
  expect_error<CompileError>([&] { eval_int(y + make_int(1), env); }, "'y' is not bound");
}

TEST(Interpreter, ErrorsNameTheCulprit) {
  Var x("x");
  Env env;
  env.bind(x, Value::from_int(DataType::Index(), 0));
  expect_error<CompileError>([&] { eval_int(make_int(4) / x, env); }, "division by zero");
  expect_error<CompileError>([&] { eval_int(make_int(4) % x, env); }, "division by zero");
  Var k("k");
  IterVar axis{k, make_int(0), make_int(4), IterKind::Reduce};
  Expr reduce = make_Reduce(ReduceOp::Sum, cast(DataType::Float(32), k), {axis});
  expect_error<InternalError>([&] { evaluate(reduce, env); }, "Reduce");
}

TEST(Interpreter, LoadIsRowMajorAndBoundsChecked) {
  Buffer a = Buffer::make("A", DataType::Float(32), {make_int(3), make_int(4)});
  std::vector<float> data(12);
  for (int i = 0; i < 12; ++i) data[i] = static_cast<float>(i) * 0.5f;
  Env env;
  env.bind_memory(a->data.get(), Env::Memory{data.data(), 12, DataType::Float(32)});
  EXPECT_EQ(eval_float(make_Load(a, {make_int(2), make_int(1)}), env), data[2 * 4 + 1]);
  Value v = evaluate(make_Load(a, {make_int(1), make_Ramp(make_int(0), make_int(2), 2)}), env);
  EXPECT_EQ(v.float_at(0), data[4]);
  EXPECT_EQ(v.float_at(1), data[6]);
  // Column 4 of a 4-wide row is out of bounds even though the flat offset is in memory.
  expect_error<CompileError>(
      [&] {
        evaluate(make_Load(a, {make_int(0), make_int(4)}), env);
      },
      "load from buffer 'A': index [0, 4] is out of bounds of shape [3, 4]");
  expect_error<CompileError>(
      [&] {
        evaluate(make_Load(a, {make_int(-1), make_int(0)}), env);
      },
      "buffer 'A'");
  Buffer b = Buffer::make("B", DataType::Float(32), {make_int(3)});
  expect_error<CompileError>([&] { evaluate(make_Load(b, {make_int(0)}), env); },
                             "buffer 'B' has no memory");
}

/// C[i, j] = sum_k A[i, k] * B[k, j] through a local accumulator, with a LetStmt, an
/// IfThenElse (ReLU on odd rows) and a 4-lane vector store of the row bias.
PrimFunc matmul_func(const Buffer& a, const Buffer& b, const Buffer& c, int n, int m, int kk) {
  Var i("i"), j("j"), k("k"), t("t");
  Buffer acc = Buffer::make("acc", DataType::Float(32), {make_int(1)}, MemoryScope::Local);
  Stmt init = make_Store(acc, make_float(0.0f), {make_int(0)});
  Stmt update =
      make_Store(acc, make_Load(acc, {make_int(0)}) + make_Load(a, {i, k}) * make_Load(b, {k, j}),
                 {make_int(0)});
  Stmt reduce = make_For(k, make_int(0), make_int(kk), ForKind::Serial, update);
  Expr sum = make_Load(acc, {make_int(0)});
  Stmt write = make_IfThenElse(i % make_int(2) == make_int(1),
                               make_Store(c, max(sum, make_float(0.0f)), {i, j}),
                               make_Store(c, sum, {i, j}));
  Stmt body = make_Allocate(acc, make_Seq({init, reduce, write}));
  Stmt inner = make_For(j, make_int(0), make_int(m), ForKind::Vectorized, body);
  Stmt row = make_LetStmt(t, i * make_int(m), inner);
  return PrimFunc{
      "matmul", {a, b, c}, make_For(i, make_int(0), make_int(n), ForKind::Parallel, row)};
}

TEST(Interpreter, RunsALoopNestLikeTheNaiveReference) {
  const int n = 5, m = 3, kk = 7;
  Buffer a = Buffer::make("A", DataType::Float(32), {make_int(n), make_int(kk)});
  Buffer b = Buffer::make("B", DataType::Float(32), {make_int(kk), make_int(m)});
  Buffer c = Buffer::make("C", DataType::Float(32), {make_int(n), make_int(m)});
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> va(n * kk), vb(kk * m), vc(n * m, 0.0f);
  for (float& x : va) x = dist(rng);
  for (float& x : vb) x = dist(rng);
  run(matmul_func(a, b, c, n, m, kk), {va.data(), vb.data(), vc.data()});
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) {
      float s = 0.0f;
      for (int k = 0; k < kk; ++k) s = s + va[i * kk + k] * vb[k * m + j];
      if (i % 2 == 1) s = std::max(s, 0.0f);
      EXPECT_EQ(vc[i * m + j], s) << i << "," << j;
    }
  }
}

TEST(Interpreter, VectorStoreScattersLanes) {
  Buffer out = Buffer::make("out", DataType::Int(32), {make_int(8)});
  // out[ramp(7, -2, 4)] = ramp(0, 1, 4) as int32: writes 7,5,3,1.
  Expr value = cast(DataType::Int(32, 4), make_Ramp(make_int(0), make_int(1), 4));
  Stmt s = make_Store(out, value, {make_Ramp(make_int(7), make_int(-2), 4)});
  std::vector<int32_t> data(8, -9);
  run(PrimFunc{"scatter", {out}, s}, {data.data()});
  EXPECT_EQ(data, (std::vector<int32_t>{-9, 3, -9, 2, -9, 1, -9, 0}));
}

TEST(Interpreter, StoreOutOfBoundsAndUninitializedReads) {
  Buffer out = Buffer::make("out", DataType::Float(32), {make_int(4)});
  Var i("i");
  Stmt s = make_For(i, make_int(0), make_int(5), ForKind::Serial,
                    make_Store(out, make_float(1.0f), {i}));
  std::vector<float> data(4);
  expect_error<CompileError>(
      [&] {
        run(PrimFunc{"f", {out}, s}, {data.data()});
      },
      "store to buffer 'out': index [4] is out of bounds of shape [4]");
  expect_error<CompileError>([&] { run(PrimFunc{"f", {out}, s}, {}); }, "takes 1 buffers, got 0");
  // An allocation starts as NaN for floats, so a missing initialisation shows.
  Buffer tmp = Buffer::make("tmp", DataType::Float(32), {make_int(2)}, MemoryScope::Local);
  Stmt copy = make_Allocate(tmp, make_Store(out, make_Load(tmp, {make_int(1)}), {make_int(0)}));
  run(PrimFunc{"g", {out}, copy}, {data.data()});
  EXPECT_TRUE(std::isnan(data[0]));
}

TEST(Interpreter, SymbolicShapesComeFromTheEnv) {
  Var n("n");
  Buffer x = Buffer::make("x", DataType::Int(64), {n});
  Var i("i");
  Stmt s = make_For(i, make_int(0), n, ForKind::Serial, make_Store(x, i * i, {i}));
  std::vector<int64_t> data(6);
  Env env;
  env.bind(n, Value::from_int(DataType::Index(), 6));
  run(PrimFunc{"squares", {x}, s}, {data.data()}, env);
  for (int64_t k = 0; k < 6; ++k) EXPECT_EQ(data[k], k * k);
}

TEST(Interpreter, NarrowTypesInMemory) {
  Buffer h = Buffer::make("h", DataType::Float(16), {make_int(2)});
  Buffer bf = Buffer::make("bf", DataType::BFloat(16), {make_int(2)});
  Buffer i8 = Buffer::make("i8", DataType::Int(8), {make_int(2)});
  // h[1] = h[0] * 3; bf[1] = bf[0] + 1; i8[1] = i8[0] * 2 (wraps).
  Stmt s = make_Seq({
      make_Store(h, make_Load(h, {make_int(0)}) * make_float(3.0, DataType::Float(16)),
                 {make_int(1)}),
      make_Store(bf, make_Load(bf, {make_int(0)}) + make_float(1.0, DataType::BFloat(16)),
                 {make_int(1)}),
      make_Store(i8, make_Load(i8, {make_int(0)}) * make_int(2, DataType::Int(8)), {make_int(1)}),
  });
  _Float16 hv[2] = {static_cast<_Float16>(0.1f), 0};
  uint16_t bv[2] = {0x3f80 /* 1.0 */, 0};
  int8_t iv[2] = {100, 0};
  run(PrimFunc{"narrow", {h, bf, i8}, s}, {hv, bv, iv});
  EXPECT_EQ(static_cast<float>(hv[1]),
            static_cast<float>(static_cast<_Float16>(static_cast<float>(hv[0]) * 3.0f)));
  EXPECT_EQ(bv[1], 0x4000);  // 2.0
  EXPECT_EQ(iv[1], -56);     // 200 wraps to -56
}

}  // namespace
}  // namespace tessel::ir

// The JIT module: concurrent compilation from several threads, function lookup, and the
// compile errors for IR the CPU backend cannot run.
#include <gtest/gtest.h>

#include <thread>

#include "codegen_test_util.h"
#include "support/error.h"

namespace tessel::codegen::test {
namespace {

const DataType f32 = DataType::Float(32);

/// C[i] = A[i] * factor, vectorised by 8.
PrimFunc scale_by(float factor, const std::string& name) {
  Buffer A = buffer("A", f32, 64), C = buffer("C", f32, 64);
  Var v("v");
  Expr idx = ramp(v * 8, 8);
  return PrimFunc{name,
                  {A, C},
                  loop(v, 8, store(C, idx, load(A, idx) * make_Broadcast(make_float(factor), 8)))};
}

template <class Fn>
std::string compile_error_of(Fn fn) {
  try {
    fn();
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

TEST(Jit, ModulesCompileConcurrently) {
  const int threads = 4, rounds = 3;
  std::vector<int> failures(threads, 0);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([t, &failures] {
      for (int r = 0; r < rounds; ++r) {
        float factor = static_cast<float>(t * 10 + r);
        JitModule module({scale_by(factor, "scale")});
        std::vector<float> a(64, 1.5f);
        auto ta = array(a, f32), tc = array(std::vector<float>(64), f32);
        if (call(module, "scale", {&ta, &tc}) != 0) ++failures[t];
        for (float x : values<float>(tc))
          if (x != 1.5f * factor) ++failures[t];
      }
    });
  for (auto& w : workers) w.join();
  for (int t = 0; t < threads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

TEST(Jit, SeveralFunctionsAndLookup) {
  JitModule module({scale_by(2.0f, "twice"), scale_by(3.0f, "thrice")});
  EXPECT_TRUE(module.has_function("twice"));
  EXPECT_FALSE(module.has_function("four_times"));
  EXPECT_NE(
      compile_error_of([&] { module.get_function("four_times"); }).find("no function 'four_times'"),
      std::string::npos);
  auto ta = array(std::vector<float>(64, 1.0f), f32), tc = array(std::vector<float>(64), f32);
  ASSERT_EQ(call(module, "thrice", {&ta, &tc}), 0);
  EXPECT_EQ(values<float>(tc)[63], 3.0f);
  JitModule moved = std::move(module);
  ASSERT_EQ(call(moved, "twice", {&ta, &tc}), 0);
  EXPECT_EQ(values<float>(tc)[0], 2.0f);
}

TEST(JitErrors, ThreadBindingIsACompileErrorOnCpu) {
  Buffer C = buffer("C", f32, 32);
  Var tx("tx");
  PrimFunc f{"gpu_kernel",
             {C},
             make_For(tx, Expr(int64_t{0}), Expr(int64_t{32}), ForKind::ThreadBinding,
                      store(C, tx, 1.0f), "threadIdx.x")};
  std::string message = compile_error_of([&] { JitModule({f}); });
  EXPECT_NE(message.find("codegen of 'gpu_kernel'"), std::string::npos) << message;
  EXPECT_NE(message.find("loop 'tx' is bound to GPU thread axis 'threadIdx.x'"), std::string::npos)
      << message;
}

TEST(JitErrors, UnflattenedBufferUnboundVariableAndReduce) {
  Buffer M = Buffer::make("M", f32, {Expr(4), Expr(4)});
  Var i("i"), stray("stray");
  PrimFunc two_d{"two_d", {M}, loop(i, 4, make_Store(M, 1.0f, {i, i}))};
  EXPECT_NE(compile_error_of([&] { JitModule({two_d}); }).find("run storage_flatten"),
            std::string::npos);

  Buffer C = buffer("C", f32, 4);
  PrimFunc unbound{"unbound", {C}, loop(i, 4, store(C, i + stray, 1.0f))};
  EXPECT_NE(compile_error_of([&] { JitModule({unbound}); }).find("variable 'stray'"),
            std::string::npos);

  Var k("k");
  Expr sum = make_Reduce(ReduceOp::Sum, load(C, k), {IterVar{k, 0, 4, IterKind::Reduce}});
  PrimFunc reduce{"reduce", {C}, store(C, Expr(int64_t{0}), sum)};
  EXPECT_NE(compile_error_of([&] { JitModule({reduce}); }).find("Reduce"), std::string::npos);
}

TEST(JitErrors, FunctionNames) {
  EXPECT_NE(
      compile_error_of([] { JitModule({scale_by(1, "bad name")}); }).find("not a C identifier"),
      std::string::npos);
  EXPECT_NE(compile_error_of([] { JitModule({scale_by(1, "9lives")}); }).find("not a C identifier"),
            std::string::npos);
  EXPECT_NE(compile_error_of([] {
              JitModule({scale_by(1, "f"), scale_by(2, "f")});
            }).find("two functions"),
            std::string::npos);
  EXPECT_NE(
      compile_error_of([] { JitModule({scale_by(1, "tessel_parallel_for")}); }).find("reserved"),
      std::string::npos);
}

}  // namespace
}  // namespace tessel::codegen::test

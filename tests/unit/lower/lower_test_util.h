// Helpers for tests of te / schedule / lower: random data, running lowered functions in the
// interpreter, naive references and IR inspection.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "ir/functor.h"
#include "ir/interpreter.h"
#include "ir/printer.h"
#include "lower/lower.h"
#include "schedule/schedule.h"
#include "support/error.h"
#include "te/compute.h"

namespace tessel::testing {

using ir::Var;
using te::Tensor;
using Floats = std::vector<float>;
inline const ir::DataType f32 = ir::DataType::Float(32);

inline Floats random_floats(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Floats v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

/// Runs `f` with its parameters bound to `args` (one vector per parameter, in order).
inline void run_func(const ir::PrimFunc& f, const std::vector<Floats*>& args) {
  std::vector<void*> ptrs;
  for (Floats* a : args) ptrs.push_back(a->data());
  ir::run(f, ptrs);
}

/// Expects |got - want| <= tol * (1 + |want|) everywhere.
inline void expect_close(const Floats& got, const Floats& want, float tol = 1e-4f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_LE(std::fabs(got[i] - want[i]), tol * (1 + std::fabs(want[i])))
        << "at " << i << ": got " << got[i] << ", want " << want[i];
}

/// C[M][N] = sum_k A[M][K] * B[K][N], accumulated in ascending k.
inline Floats matmul_ref(const Floats& a, const Floats& b, int64_t m, int64_t n, int64_t k) {
  Floats c(m * n, 0.0f);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t q = 0; q < k; ++q) acc += a[i * k + q] * b[q * n + j];
      c[i * n + j] = acc;
    }
  return c;
}

/// A matmul DAG: A[M][K], B[K][N], C[M][N] with axes "i", "j" and reduction "k".
struct Matmul {
  Matmul(int64_t m, int64_t n, int64_t k) : M(m), N(n), K(k) {
    A = te::placeholder({M, K}, ir::DataType::Float(32), "A");
    B = te::placeholder({K, N}, ir::DataType::Float(32), "B");
    ir::IterVar r = te::reduce_axis(K, "k");
    C = te::compute({M, N}, [&](ir::Var i, ir::Var j) { return te::sum(A(i, r) * B(r, j), {r}); },
                    "C", {"i", "j"});
  }
  /// Lowers `s`, runs it on random data and compares with the naive reference.
  void check(const schedule::Schedule& s, std::mt19937& rng, float tol = 1e-4f) const {
    ir::PrimFunc f = lower::lower(s, {A, B, C}, "matmul");
    Floats a = random_floats(M * K, rng), b = random_floats(K * N, rng), c(M * N, 0.0f);
    run_func(f, {&a, &b, &c});
    expect_close(c, matmul_ref(a, b, M, N, K), tol);
  }
  int64_t M, N, K;
  te::Tensor A, B, C;
};

/// Random extents for shape tests: always some 1s and non-multiples of small factors.
inline std::vector<int64_t> random_extents(std::mt19937& rng, int count, int64_t max = 23) {
  std::uniform_int_distribution<int64_t> dist(1, max);
  std::vector<int64_t> out;
  for (int i = 0; i < count; ++i) out.push_back(dist(rng));
  return out;
}

/// Every node of kind T in `s`, outermost first.
template <class T>
std::vector<const T*> find_nodes(const ir::Stmt& s) {
  struct Finder : ir::IRVisitor {
    void visit(const ir::Stmt& st) override {
      if (const T* n = st.as<T>()) found.push_back(n);
      IRVisitor::visit(st);
    }
    std::vector<const T*> found;
  } finder;
  finder.visit(s);
  return finder.found;
}

/// The constant shape of the Allocate of the buffer named `name` (fails when absent).
inline std::vector<int64_t> allocation_shape(const ir::Stmt& s, const std::string& name) {
  for (const ir::AllocateNode* a : find_nodes<ir::AllocateNode>(s)) {
    if (a->buffer->name != name) continue;
    std::vector<int64_t> shape;
    for (const ir::Expr& e : a->buffer->shape) {
      const int64_t* v = ir::as_const_int(e);
      EXPECT_TRUE(v) << "non-constant allocation extent " << e;
      shape.push_back(v ? *v : -1);
    }
    return shape;
  }
  ADD_FAILURE() << "no allocation of '" << name << "' in\n" << s;
  return {};
}

/// The For loops of `s` whose kind is `kind`, by variable name.
inline std::vector<std::string> loops_of_kind(const ir::Stmt& s, ir::ForKind kind) {
  std::vector<std::string> names;
  for (const ir::ForNode* f : find_nodes<ir::ForNode>(s))
    if (f->for_kind == kind) names.push_back(f->var.name());
  return names;
}

/// Expects `fn` to throw a ScheduleError about `stage` and `loop` whose message contains
/// `text`.
inline void expect_schedule_error(const std::function<void()>& fn, const std::string& stage,
                                  const std::string& loop, const std::string& text) {
  try {
    fn();
    ADD_FAILURE() << "expected a ScheduleError about stage '" << stage << "'";
  } catch (const ScheduleError& e) {
    EXPECT_EQ(e.stage(), stage) << e.what();
    EXPECT_EQ(e.loop(), loop) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'" + stage + "'"), std::string::npos) << e.what();
    if (!loop.empty()) {
      EXPECT_NE(std::string(e.what()).find("'" + loop + "'"), std::string::npos) << e.what();
    }
  }
}

/// Expects `fn` to throw a CompileError whose message contains `text`.
inline void expect_compile_error(const std::function<void()>& fn, const std::string& text) {
  try {
    fn();
    ADD_FAILURE() << "expected a CompileError containing '" << text << "'";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

}  // namespace tessel::testing

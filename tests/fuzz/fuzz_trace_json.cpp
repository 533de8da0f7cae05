// Fuzz target: schedule traces (JSON), as tuning records carry them. A trace is parsed,
// written back and parsed again (the same trace), replayed onto a small fused kernel
// (a matmul with a bias-add and ReLU epilogue, sizes that no factor divides evenly), lowered
// and run in the IR interpreter: whatever schedule a trace makes must compute what the
// naive loops compute. Refusals (CompileError, ScheduleError) are fine.
#include <cmath>
#include <random>

#include "fuzz_util.h"
#include "ir/functor.h"
#include "ir/interpreter.h"
#include "lower/lower.h"
#include "schedule/replay.h"
#include "te/compute.h"

namespace {

using namespace tessel;

constexpr int64_t M = 6, N = 10, K = 5;

/// The kernel every trace is replayed onto, with stages A, B, bias, C (the matmul) and D.
struct Kernel {
  Kernel() {
    const ir::DataType f32 = ir::DataType::Float(32);
    A = te::placeholder({M, K}, f32, "A");
    B = te::placeholder({K, N}, f32, "B");
    bias = te::placeholder({N}, f32, "bias");
    ir::IterVar k = te::reduce_axis(K, "k");
    C = te::compute({M, N}, [&](ir::Var i, ir::Var j) { return te::sum(A(i, k) * B(k, j), {k}); },
                    "C", {"i", "j"});
    D = te::compute(
        {M, N},
        [&](ir::Var i, ir::Var j) { return ir::max(C(i, j) + bias(j), ir::make_const(f32, 0.0)); },
        "D", {"i", "j"});
  }
  te::Tensor A, B, bias, C, D;
};

/// The largest number of iterations of any innermost statement: the product of the
/// constant extents of its enclosing loops (a non-constant extent counts as unbounded).
class IterationCount : public ir::IRVisitor {
 public:
  double worst = 1;
  void visit_For(const ir::ForNode* op) override {
    const int64_t* extent = ir::as_const_int(op->extent);
    double saved = current_;
    current_ *= extent ? static_cast<double>(*extent) : INFINITY;
    worst = std::max(worst, current_);
    visit(op->body);
    current_ = saved;
  }

 private:
  double current_ = 1;
};

std::vector<float> random_values(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  schedule::Trace trace;
  if (!fuzz::accepts([&] { trace = schedule::Trace::from_json(fuzz::as_string(data, size)); }))
    return 0;
  fuzz::require(schedule::Trace::from_json(trace.to_json()) == trace,
                "a parsed trace reads back from its JSON");

  Kernel kernel;
  ir::PrimFunc f;
  if (!fuzz::accepts([&] {
        schedule::Schedule s = schedule::replay({kernel.D}, trace);
        f = lower::lower(s, {kernel.A, kernel.B, kernel.bias, kernel.D}, "fused");
      }))
    return 0;
  // Over-split loops with guards can make a tiny kernel run long; such schedules are legal
  // but too slow to interpret here.
  IterationCount count;
  count.visit(f.body);
  if (count.worst > 1e5) return 0;

  std::mt19937 rng(7);
  std::vector<float> a = random_values(M * K, rng), b = random_values(K * N, rng),
                     bias = random_values(N, rng), d(M * N, 0.0f);
  ir::run(f, {a.data(), b.data(), bias.data(), d.data()});
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += a[i * K + k] * b[k * N + j];
      float want = std::max(acc + bias[j], 0.0f);
      fuzz::require(std::fabs(d[i * N + j] - want) <= 1e-5f * (1 + std::fabs(want)),
                    "a replayed schedule computes the naive result");
    }
  return 0;
}

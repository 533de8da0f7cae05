// Randomised equivalence tests: matrix products written with random loop orders, extents
// and loop kinds go through each low-level pass and the whole pipeline; the interpreter must
// give bit-identical results before and after (the k order of every sum is kept).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "pass_test_util.h"
#include "tir/pipeline.h"
#include "tir/storage_flatten.h"
#include "tir/unroll.h"
#include "tir/vectorize.h"
#include "tir/verify.h"

namespace tessel::tir {
namespace {

using namespace ir;
using testing::expect_same_results;

ForKind random_kind(std::mt19937& rng) {
  const ForKind kinds[] = {ForKind::Serial, ForKind::Vectorized, ForKind::Unrolled,
                           ForKind::Parallel};
  return kinds[rng() % 4];
}

/// Wraps `body` in loops over `vars` (outermost first) in a random order with random kinds.
Stmt random_nest(std::mt19937& rng, std::vector<std::pair<Var, int64_t>> vars, Stmt body) {
  std::shuffle(vars.begin(), vars.end(), rng);
  for (size_t d = vars.size(); d-- > 0;)
    body = make_For(vars[d].first, make_int(0), make_int(vars[d].second), random_kind(rng), body);
  return body;
}

/// out[i, j] = bias[j] + sum_k A[i, k] * B[k, j], through an optional local copy of bias.
PrimFunc random_matmul(uint32_t seed) {
  std::mt19937 rng(seed);
  auto extent = [&] { return static_cast<int64_t>(1 + rng() % 6); };
  int64_t n = extent(), m = extent(), kk = extent();
  DataType f32 = DataType::Float(32);
  Buffer a = Buffer::make("A", f32, {make_int(n), make_int(kk)});
  Buffer b = Buffer::make("B", f32, {make_int(kk), make_int(m)});
  Buffer bias = Buffer::make("bias", f32, {make_int(m)});
  Buffer out = Buffer::make("out", f32, {make_int(n), make_int(m)});
  Buffer copy = Buffer::make("bias_local", f32, {make_int(m)}, MemoryScope::Local);
  Var i("i"), j("j"), k("k"), c("c");
  Stmt stage = random_nest(rng, {{c, m}}, make_Store(copy, make_Load(bias, {c}), {c}));
  Stmt init = random_nest(rng, {{i, n}, {j, m}}, make_Store(out, make_Load(copy, {j}), {i, j}));
  Expr product = make_Load(a, {i, k}) * make_Load(b, {k, j});
  Stmt update = random_nest(rng, {{i, n}, {j, m}, {k, kk}},
                            make_Store(out, make_Load(out, {i, j}) + product, {i, j}));
  Stmt body = make_Allocate(copy, make_Seq({stage, init, update}));
  return PrimFunc{"matmul", {a, b, bias, out}, body};
}

TEST(RandomNests, EachPassAndThePipelineKeepResults) {
  int vectorized = 0;
  for (uint32_t seed = 0; seed < 60; ++seed) {
    SCOPED_TRACE(seed);
    PrimFunc f = random_matmul(seed);
    PrimFunc flat = storage_flatten(f);
    verify_func(flat);
    expect_same_results(f, flat, 1);
    for (const PrimFunc& g : {f, flat}) {
      PrimFunc vec = vectorize_loops(g);
      verify_func(vec);
      vectorized += testing::prints(vec, "ramp(");
      expect_same_results(g, vec, 1);
      PrimFunc unrolled = unroll_loops(vec);
      verify_func(unrolled);
      expect_same_results(g, unrolled, 1);
    }
    PassOptions opts;
    opts.verify = true;
    expect_same_results(f, run_passes(f, opts), 2);
  }
  EXPECT_GE(vectorized, 40);  // most nests have a vectorizable loop; the check has teeth
}

}  // namespace
}  // namespace tessel::tir

// Lowering of Schedule::prefetch: which cache lines each iteration of the loop prefetches
// (seen through the interpreter, against spans worked out from the access pattern by
// hand), that results do not change, and the schedules that must be refused.
#include <gtest/gtest.h>

#include <set>

#include "lower_test_util.h"
#include "schedule/replay.h"

namespace tessel::lower {
namespace {

using namespace tessel::testing;

constexpr int64_t kLine = 16;  // float32 elements per 64-byte cache line

/// C[i, j] = sum_k A[i, k] * P[j / 16, k, j % 16]: a product reading its right operand
/// packed in panels of 16 columns, as the matmul schedule does.
struct PanelProduct {
  PanelProduct(int64_t m, int64_t panels, int64_t k) : M(m), NP(panels), K(k) {
    A = te::placeholder({M, K}, f32, "A");
    P = te::placeholder({NP, K, 16}, f32, "P");
    ir::IterVar r = te::reduce_axis(K, "k");
    C = te::compute(
        {M, NP * 16},
        [&](Var i, Var j) { return te::sum(A(i, r) * P(j / 16, r, j % 16), {r}); }, "C",
        {"i", "j"});
  }
  int64_t M, NP, K;
  Tensor A, P, C;
};

/// Runs `f` (parameters A, P, C of `p`) on random data; checks C against naive loops and
/// returns the offsets prefetched in P, in the order they were issued.
std::vector<int64_t> run_logging_prefetches(const ir::PrimFunc& f, const PanelProduct& p) {
  std::mt19937 rng(5);
  Floats a = random_floats(p.M * p.K, rng), packed = random_floats(p.NP * p.K * 16, rng);
  Floats c(p.M * p.NP * 16, 0.0f);
  std::vector<int64_t> log;
  ir::Env env;
  env.on_prefetch = [&](const std::string& buffer, int64_t offset) {
    EXPECT_EQ(buffer, "P");
    log.push_back(offset);
  };
  ir::run(f, {a.data(), packed.data(), c.data()}, env);
  Floats b(p.K * p.NP * 16);  // P unpacked to [K][N]
  for (int64_t q = 0; q < p.K; ++q)
    for (int64_t j = 0; j < p.NP * 16; ++j)
      b[q * p.NP * 16 + j] = packed[((j / 16) * p.K + q) * 16 + j % 16];
  expect_close(c, matmul_ref(a, b, p.M, p.NP * 16, p.K));
  return log;
}

/// The cache lines (as first offsets of 16 elements) of panel `panel` of P: K lines.
std::set<int64_t> panel_lines(const PanelProduct& p, int64_t panel) {
  std::set<int64_t> lines;
  for (int64_t e = 0; e < p.K * 16; e += kLine) lines.insert(panel * p.K * 16 + e);
  return lines;
}

/// Splits the log into one chunk per iteration of the prefetching loop (each iteration
/// issues the same number) and expects chunk v to touch exactly the lines of panel
/// min(v + 1, NP - 1), each offset inside that panel.
void expect_next_panels(const std::vector<int64_t>& log, const PanelProduct& p) {
  ASSERT_EQ(log.size() % p.NP, 0u) << log.size() << " prefetches over " << p.NP << " iterations";
  size_t per_iteration = log.size() / p.NP;
  for (int64_t v = 0; v < p.NP; ++v) {
    int64_t next = std::min(v + 1, p.NP - 1);
    std::set<int64_t> lines;
    for (size_t x = v * per_iteration; x < (v + 1) * per_iteration; ++x) {
      int64_t offset = log[x];
      ASSERT_GE(offset, next * p.K * 16) << "iteration " << v;
      ASSERT_LT(offset, (next + 1) * p.K * 16) << "iteration " << v;
      lines.insert(offset / kLine * kLine);
    }
    EXPECT_EQ(lines, panel_lines(p, next)) << "iteration " << v;
  }
}

TEST(LowerPrefetch, EachPanelFetchesTheNextOneSpreadOverItsIterations) {
  PanelProduct p(8, 3, 6);
  schedule::Schedule s({p.C});
  auto [jo, ji] = s.split(p.C, "j", 16);
  auto [io, ii] = s.split(p.C, "i", 4);
  s.reorder(p.C, {jo, io, "k", ii, ji});
  s.prefetch(p.C, jo, p.P);
  ir::PrimFunc f = lower(s, {p.A, p.P, p.C}, "panel_product");
  // One Prefetch, inside the innermost of the serial loops (the update's ji loop).
  std::vector<const ir::PrefetchNode*> prefetches = find_nodes<ir::PrefetchNode>(f.body);
  ASSERT_EQ(prefetches.size(), 1u) << f;
  std::vector<int64_t> log = run_logging_prefetches(f, p);
  // Every iteration of the update's loops below jo (2 x 6 x 4 x 16) issues one.
  EXPECT_EQ(log.size(), static_cast<size_t>(p.NP * 2 * 6 * 4 * 16));
  expect_next_panels(log, p);
}

TEST(LowerPrefetch, SpansOfMoreLinesThanIterationsFetchSeveralPerIteration) {
  // A vectorized inner loop leaves one serial loop of 2 row tiles: 24 lines of the next
  // panel over 2 iterations, 12 each.
  PanelProduct p(8, 4, 24);
  schedule::Schedule s({p.C});
  auto [jo, ji] = s.split(p.C, "j", 16);
  auto [io, ii] = s.split(p.C, "i", 4);
  s.reorder(p.C, {jo, io, ii, ji, "k"});
  s.prefetch(p.C, jo, p.P);
  s.unroll(p.C, ii);
  s.vectorize(p.C, ji);
  ir::PrimFunc f = lower(s, {p.A, p.P, p.C}, "panel_product");
  std::vector<int64_t> log = run_logging_prefetches(f, p);
  EXPECT_EQ(log.size(), static_cast<size_t>(p.NP * 2 * 12));
  expect_next_panels(log, p);
}

TEST(LowerPrefetch, WithoutSerialLoopsInsideTheLinesComeFirst) {
  PanelProduct p(4, 2, 3);
  schedule::Schedule s({p.C});
  auto [jo, ji] = s.split(p.C, "j", 16);
  s.reorder(p.C, {jo, "i", ji, "k"});
  s.prefetch(p.C, "i", p.P);  // i's body reads one panel row by row: every row, all 3 lines
  s.vectorize(p.C, ji);
  s.unroll(p.C, "k");
  ir::PrimFunc f = lower(s, {p.A, p.P, p.C}, "panel_product");
  std::vector<int64_t> log = run_logging_prefetches(f, p);
  // Iteration i of panel jo fetches what row min(i + 1, 3) of the same panel reads: all of
  // the panel, 3 lines.
  ASSERT_EQ(log.size(), static_cast<size_t>(p.NP * p.M * 3));
  for (size_t x = 0; x < log.size(); ++x) {
    int64_t panel = static_cast<int64_t>(x) / (p.M * 3);
    EXPECT_EQ(log[x], panel * p.K * 16 + static_cast<int64_t>(x % 3) * kLine) << x;
  }
}

TEST(LowerPrefetch, ReplaysFromItsTrace) {
  PanelProduct p(8, 3, 6);
  schedule::Schedule s({p.C});
  auto [jo, ji] = s.split(p.C, "j", 16);
  s.reorder(p.C, {jo, "i", ji, "k"});
  s.prefetch(p.C, jo, p.P);
  schedule::Trace trace = schedule::Trace::from_json(s.trace().to_json());
  ASSERT_EQ(trace.steps().back().primitive, "prefetch");
  schedule::Schedule replayed = schedule::replay({p.C}, trace);
  EXPECT_EQ(ir::to_string(lower(replayed, {p.A, p.P, p.C}, "f").body),
            ir::to_string(lower(s, {p.A, p.P, p.C}, "f").body));
}

TEST(LowerPrefetch, RefusesWhatCannotBePrefetched) {
  PanelProduct p(8, 3, 6);
  {
    schedule::Schedule s({p.C});
    s.vectorize(p.C, "j");
    expect_schedule_error([&] { s.prefetch(p.C, "j", p.P); }, "C", "j", "vectorized");
  }
  {
    schedule::Schedule s({p.C});
    expect_schedule_error([&] { s.prefetch(p.C, "i", p.C); }, "C", "i", "its own output");
    s.prefetch(p.C, "i", p.P);
    expect_schedule_error([&] { s.prefetch(p.C, "i", p.P); }, "C", "i", "already");
    expect_schedule_error([&] { s.split(p.C, "i", 2); }, "C", "i", "prefetches 'P'");
  }
  {
    // A stage computed inside another one's loop has no buffer of the whole tensor.
    Tensor scaled = te::compute({p.M, p.K}, [&](Var i, Var k) { return p.A(i, k) * 2.0f; },
                                "scaled", {"i", "k"});
    ir::IterVar r = te::reduce_axis(p.K, "r");
    Tensor d = te::compute({p.M}, [&](Var i) { return te::sum(scaled(i, r), {r}); }, "D", {"i"});
    schedule::Schedule s({d});
    s.compute_at(scaled, d, "i");
    expect_schedule_error([&] { s.prefetch(d, "i", scaled); }, "D", "i", "not computed at the root");
    // Computed at the root after all, but nothing in D's loop reads A.
    schedule::Schedule t({d});
    t.prefetch(d, "i", p.A);
    expect_schedule_error([&] { lower(t, {p.A, d}, "f"); }, "D", "i", "nothing in the loop reads 'A'");
  }
}

}  // namespace
}  // namespace tessel::lower

// Tests of schedule primitives: the loops and stages they make, what the trace records, and
// every illegal use raising a ScheduleError that names the stage and the loop.
#include <gtest/gtest.h>

#include "unit/lower/lower_test_util.h"

namespace tessel::schedule {
namespace {

using namespace tessel::testing;
using ir::Var;
using te::Tensor;

using Names = std::vector<std::string>;
const ir::DataType f32 = ir::DataType::Float(32);

/// Two chained stages on top of a matmul: P = A * 2 -> C = P x B -> D = relu(C).
struct Dag {
  Dag() {
    A = te::placeholder({8, 6}, f32, "A");
    B = te::placeholder({6, 10}, f32, "B");
    P = te::compute({8, 6}, [&](Var i, Var j) { return A(i, j) * 2.0f; }, "P", {"p0", "p1"});
    ir::IterVar k = te::reduce_axis(6, "k");
    C = te::compute({8, 10}, [&](Var i, Var j) { return te::sum(P(i, k) * B(k, j), {k}); }, "C",
                    {"i", "j"});
    D = te::compute({8, 10}, [&](Var i, Var j) { return ir::max(C(i, j), 0.0f); }, "D", {"x", "y"});
  }
  Tensor A, B, P, C, D;
};

Names stage_names(const Schedule& s) {
  Names names;
  for (const Stage& st : s.stages()) names.push_back(st.name);
  return names;
}

TEST(Schedule, OneStagePerOperationInTopologicalOrder) {
  Dag g;
  Schedule s({g.D});
  EXPECT_EQ(stage_names(s), (Names{"A", "P", "B", "C", "D"}));
  EXPECT_TRUE(s.stage(g.D).is_output);
  EXPECT_FALSE(s.stage("C").is_output);
  EXPECT_TRUE(s.stage("A").is_placeholder());
  EXPECT_EQ(s.stage(g.C).roots, (Names{"i", "j", "k"}));
  EXPECT_EQ(s.stage(g.C).find_loop("k")->kind, ir::IterKind::Reduce);
  EXPECT_TRUE(s.trace().empty());
}

TEST(Schedule, SplitMakesOuterAndInnerLeaves) {
  Dag g;
  Schedule s({g.D});
  auto [outer, inner] = s.split(g.C, "j", 4);
  EXPECT_EQ(outer, "j.outer");
  EXPECT_EQ(inner, "j.inner");
  EXPECT_EQ(s.stage(g.C).leaves, (Names{"i", "j.outer", "j.inner", "k"}));
  auto [ko, ki] = s.split_nparts(g.C, "k", 3);
  EXPECT_EQ(s.stage(g.C).find_loop(ki)->kind, ir::IterKind::Reduce);
  const LoopRelation& rel = s.stage(g.C).relations.back();
  EXPECT_TRUE(rel.by_nparts);
  EXPECT_EQ(rel.factor, 3);
  ASSERT_EQ(s.trace().steps().size(), 2u);
  EXPECT_EQ(json::write(s.trace().steps()[0].args), R"({"stage":"C","loop":"j","factor":4})");
  EXPECT_EQ(s.trace().steps()[1].primitive, "split_nparts");
}

TEST(Schedule, TileFuseReorder) {
  Dag g;
  Schedule s({g.D});
  TileLoops t = s.tile(g.D, "x", "y", 2, 5);
  EXPECT_EQ(s.stage(g.D).leaves, (Names{"x.outer", "y.outer", "x.inner", "y.inner"}));
  std::string fused = s.fuse(g.D, t.x_outer, t.y_outer);
  EXPECT_EQ(fused, "x.outer.y.outer.fused");
  EXPECT_EQ(s.stage(g.D).leaves, (Names{fused, "x.inner", "y.inner"}));
  s.reorder(g.D, {"y.inner", "x.inner"});
  EXPECT_EQ(s.stage(g.D).leaves, (Names{fused, "y.inner", "x.inner"}));
  // reorder puts the listed loops in the slots they occupy; others stay.
  s.reorder(g.C, {"k", "i"});
  EXPECT_EQ(s.stage(g.C).leaves, (Names{"k", "j", "i"}));
  // tile of loops given in reverse order takes the same slots.
  s.tile(g.C, "j", "i", 2, 2);
  EXPECT_EQ(s.stage(g.C).leaves, (Names{"k", "j.outer", "i.outer", "j.inner", "i.inner"}));
}

TEST(Schedule, AnnotationsAndAttachments) {
  Dag g;
  Schedule s({g.D});
  s.parallel(g.D, "x");
  s.vectorize(g.D, "y");
  s.unroll(g.C, "k");
  EXPECT_EQ(s.stage(g.D).find_loop("x")->for_kind, ir::ForKind::Parallel);
  EXPECT_EQ(s.stage(g.D).find_loop("y")->for_kind, ir::ForKind::Vectorized);
  EXPECT_EQ(s.stage(g.C).find_loop("k")->for_kind, ir::ForKind::Unrolled);
  s.compute_at(g.C, g.D, "x");
  EXPECT_EQ(s.stage(g.C).attach, AttachKind::At);
  EXPECT_EQ(s.stage(g.C).attach_stage, "D");
  EXPECT_EQ(s.stage(g.C).attach_loop, "x");
  s.compute_at(g.P, g.D, "x");  // D reads P through C
  s.compute_inline(g.P);
  EXPECT_EQ(s.stage(g.P).attach, AttachKind::Inline);
  s.compute_root(g.C);
  EXPECT_EQ(s.stage(g.C).attach, AttachKind::Root);
  EXPECT_TRUE(s.stage(g.C).attach_stage.empty());
}

TEST(Schedule, CacheStagesAreInsertedInOrderAndFoundByTensor) {
  Dag g;
  Schedule s({g.D});
  Tensor BL = s.cache_read(g.B, "local", {g.C});
  Tensor CW = s.cache_write(g.C, "global");
  EXPECT_EQ(stage_names(s), (Names{"A", "P", "B", "B.local", "C.global", "C", "D"}));
  EXPECT_EQ(s.stage(BL).scope, ir::MemoryScope::Local);
  EXPECT_EQ(&s.stage(g.C), &s.stage("C"));  // the original tensor still names its stage
  EXPECT_EQ(s.stage(CW).roots, (Names{"i", "j", "k"}));
  EXPECT_EQ(s.stage(g.C).roots, (Names{"i", "j"}));
  EXPECT_EQ(s.tensor("B.local").op()->name, "B.local");
  Tensor rf = s.rfactor(CW, "k", 1);
  EXPECT_EQ(s.stage(rf).roots, (Names{"i", "k", "j"}));
  EXPECT_EQ(stage_names(s)[4], "C.global.rf");
  EXPECT_EQ(s.trace().steps().back().primitive, "rfactor");
}

TEST(Schedule, CacheStageNamesAreMadeUnique) {
  Tensor A = te::placeholder({4}, f32, "A");
  Tensor C = te::compute(
      {4}, [&](Var i) { return A(i) * 2.0f; }, "C");
  Tensor D = te::compute(
      {4}, [&](Var i) { return A(i) + C(i); }, "D");
  Schedule s({D});
  EXPECT_EQ(s.cache_read(A, "local", {C}).name(), "A.local");
  EXPECT_EQ(s.cache_read(A, "local", {D}).name(), "A.local.1");
  EXPECT_EQ(stage_names(s), (Names{"A", "A.local.1", "A.local", "C", "D"}));
}

TEST(Schedule, LoopNamesHeldByTheScheduleCanBePassed) {
  Dag g;
  Schedule s({g.D});
  const Names& leaves = s.stage(g.D).leaves;
  s.fuse(g.D, leaves[0], leaves[1]);
  s.split(g.D, leaves[0], 4);
  s.reorder(g.D, s.stage(g.D).leaves);
  EXPECT_EQ(
      s.trace().to_json(),
      R"({"version":1,"steps":[{"primitive":"fuse","stage":"D","outer":"x","inner":"y"},)"
      R"({"primitive":"split","stage":"D","loop":"x.y.fused","factor":4},)"
      R"({"primitive":"reorder","stage":"D","loops":["x.y.fused.outer","x.y.fused.inner"]}]})");
}

TEST(Schedule, CopiesAreIndependent) {
  Dag g;
  Schedule s({g.D});
  s.split(g.D, "x", 2);
  Schedule copy = s;
  copy.split(g.D, "y", 2);
  EXPECT_EQ(s.stage(g.D).leaves, (Names{"x.outer", "x.inner", "y"}));
  EXPECT_EQ(copy.stage(g.D).leaves, (Names{"x.outer", "x.inner", "y.outer", "y.inner"}));
  EXPECT_EQ(s.trace().steps().size(), 1u);
}

// ---- errors: each names the stage and the loop ------------------------------------------

TEST(ScheduleErrors, UnknownStageOrLoop) {
  Dag g;
  Schedule s({g.D});
  expect_schedule_error([&] { s.split("E", "i", 2); }, "E", "", "no stage of that name");
  expect_schedule_error([&] { s.split(g.C, "z", 2); }, "C", "z", "no such loop");
  expect_schedule_error([&] { s.vectorize(g.C, "q"); }, "C", "q", "no such loop");
  Tensor other = te::placeholder({2}, f32, "Other");
  expect_schedule_error([&] { s.split(other, "i", 2); }, "Other", "", "not part of this schedule");
  expect_schedule_error([&] { s.split(g.A, "ax0", 2); }, "A", "", "is a placeholder");
}

TEST(ScheduleErrors, NonPositiveFactors) {
  Dag g;
  Schedule s({g.D});
  expect_schedule_error([&] { s.split(g.C, "i", 0); }, "C", "i",
                        "split factor must be positive, got 0");
  expect_schedule_error([&] { s.split_nparts(g.C, "i", -3); }, "C", "i",
                        "number of parts must be positive, got -3");
  expect_schedule_error([&] { s.tile(g.C, "i", "j", 4, 0); }, "C", "j", "tile factor");
  EXPECT_EQ(s.stage(g.C).leaves, (Names{"i", "j", "k"})) << "a failed primitive changes nothing";
  EXPECT_TRUE(s.trace().empty()) << "a failed primitive is not recorded";
}

TEST(ScheduleErrors, SplitOfAnAlreadySplitLoop) {
  Dag g;
  Schedule s({g.D});
  s.split(g.C, "i", 2);
  expect_schedule_error([&] { s.split(g.C, "i", 2); }, "C", "i", "already split or fused");
}

TEST(ScheduleErrors, ReorderAcrossStages) {
  Dag g;
  Schedule s({g.D});
  // "x" is a loop of D, not of C.
  expect_schedule_error([&] { s.reorder(g.C, {"j", "x"}); }, "C", "x", "no such loop");
  expect_schedule_error([&] { s.reorder(g.C, {"j", "j"}); }, "C", "j", "listed twice");
}

TEST(ScheduleErrors, FuseNeedsAdjacentLoopsOfOneKind) {
  Dag g;
  Schedule s({g.D});
  expect_schedule_error([&] { s.fuse(g.C, "i", "k"); }, "C", "k", "immediately after loop 'i'");
  expect_schedule_error([&] { s.fuse(g.C, "j", "i"); }, "C", "i", "immediately after loop 'j'");
  expect_schedule_error([&] { s.fuse(g.C, "j", "k"); }, "C", "k",
                        "cannot fuse a reduction loop with a data-parallel loop");
}

TEST(ScheduleErrors, AnnotationsOfReductionLoops) {
  Dag g;
  Schedule s({g.D});
  expect_schedule_error([&] { s.vectorize(g.C, "k"); }, "C", "k", "is a reduction loop");
  expect_schedule_error([&] { s.parallel(g.C, "k"); }, "C", "k", "can be parallelized");
  s.parallel(g.C, "i");
  expect_schedule_error([&] { s.vectorize(g.C, "i"); }, "C", "i", "already annotated parallel");
  expect_schedule_error([&] { s.split(g.C, "i", 2); }, "C", "i", "the loop is annotated parallel");
}

TEST(ScheduleErrors, ComputeAtTargets) {
  Dag g;
  Schedule s({g.D});
  expect_schedule_error([&] { s.compute_at(g.C, g.P, "p0"); }, "C", "p0",
                        "target stage 'P' does not consume 'C'");
  expect_schedule_error([&] { s.compute_at(g.C, g.C, "i"); }, "C", "i", "inside itself");
  expect_schedule_error([&] { s.compute_at(g.D, g.C, "i"); }, "D", "i", "an output stage");
  expect_schedule_error([&] { s.compute_at(g.C, g.D, "zz"); }, "D", "zz", "has no such loop");
  s.split(g.D, "x", 2);
  expect_schedule_error([&] { s.compute_at(g.C, g.D, "x"); }, "D", "x", "already split");
  s.compute_inline(g.P);
  expect_schedule_error([&] { s.compute_at(g.B, g.P, "p0"); }, "B", "", "placeholder");
  Schedule s2({g.D});
  s2.compute_inline(g.P);
  expect_schedule_error([&] { s2.compute_at(g.C, g.P, "p0"); }, "C", "p0", "is inlined");
}

TEST(ScheduleErrors, ComputeAtBreaksDependences) {
  // A producer attached inside its consumer's loop, then that consumer attached inside the
  // producer's own consumer: a cycle is impossible, the target must consume the stage.
  Dag g;
  Schedule s({g.D});
  s.compute_at(g.P, g.C, "k");
  expect_schedule_error([&] { s.compute_at(g.C, g.P, "p1"); }, "C", "p1", "does not consume");
  // Transforming a loop that holds an attached stage would lose its place.
  expect_schedule_error([&] { s.split(g.C, "k", 2); }, "C", "k",
                        "stage 'P' is computed at this loop");
  expect_schedule_error([&] { s.compute_inline(g.C); }, "C", "k", "a reduction cannot be inlined");
}

TEST(ScheduleErrors, ComputeInline) {
  Dag g;
  Schedule s({g.D});
  expect_schedule_error([&] { s.compute_inline(g.D); }, "D", "",
                        "an output stage cannot be inlined");
  Dag h;
  Tensor E = te::compute(
      {8, 10}, [&](Var i, Var j) { return h.D(i, j) + 1.0f; }, "E");
  Schedule s3({E});
  s3.compute_at(h.C, h.D, "x");
  expect_schedule_error([&] { s3.compute_inline(h.D); }, "D", "x",
                        "stage 'C' is computed at this loop");
  std::vector<Tensor> mo = te::compute_multi(
      {4},
      [&](Var i) {
        return std::vector<ir::Expr>{h.A(i, 0), h.A(i, 1)};
      },
      "MO");
  Tensor F = te::compute(
      {4}, [&](Var i) { return mo[0](i) + mo[1](i); }, "F");
  Schedule s4({F});
  expect_schedule_error([&] { s4.compute_inline(mo[0]); }, "MO", "", "several outputs");
}

TEST(ScheduleErrors, Rfactor) {
  Dag g;
  Schedule s({g.D});
  expect_schedule_error([&] { s.rfactor(g.C, "j", 0); }, "C", "j", "not a reduction loop");
  expect_schedule_error([&] { s.rfactor(g.D, "x", 0); }, "D", "x", "has no reduction");
  expect_schedule_error([&] { s.rfactor(g.C, "k", 3); }, "C", "k", "factor_axis must be in [0, 2]");
  expect_schedule_error([&] { s.rfactor(g.C, "kk", 0); }, "C", "kk", "no such loop");
  s.split(g.C, "i", 2);
  expect_schedule_error([&] { s.rfactor(g.C, "k", 0); }, "C", "k",
                        "data-parallel loop 'i' was already transformed");
}

TEST(ScheduleErrors, CacheStages) {
  Dag g;
  Schedule s({g.D});
  expect_schedule_error([&] { s.cache_read(g.B, "texture", {g.C}); }, "B", "",
                        "unknown memory scope 'texture'");
  expect_schedule_error([&] { s.cache_read(g.B, "local", {g.D}); }, "D", "",
                        "does not read tensor 'B'");
  expect_schedule_error([&] { s.cache_read(g.B, "local", {}); }, "B", "", "no reader");
  expect_schedule_error([&] { s.cache_read(g.B, "local", {g.C}, Layout{}.split(2, 4)); }, "B.local",
                        "", "layout splits dimension 2 of a 2-d tensor");
  expect_schedule_error([&] { s.cache_read(g.B, "local", {g.C}, Layout{}.split(1, 0)); }, "B.local",
                        "ax1", "layout split factor must be positive");
  expect_schedule_error(
      [&] {
        s.cache_read(g.B, "local", {g.C}, Layout{}.split(1, 4).reorder({0, 1}));
      },
      "B.local", "", "layout order must be a permutation of the 3 axes");
  expect_schedule_error([&] { s.cache_write(g.C, "local", Layout{}.split(1, 3)); }, "C", "",
                        "must divide its dimension");
  s.split(g.C, "i", 2);
  expect_schedule_error([&] { s.cache_write(g.C, "local"); }, "C", "", "already transformed");
  EXPECT_EQ(stage_names(s), (Names{"A", "P", "B", "C", "D"})) << "failed primitives add nothing";
}

}  // namespace
}  // namespace tessel::schedule

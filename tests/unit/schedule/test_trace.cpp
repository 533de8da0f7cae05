// Tests of traces: the JSON reader/writer, the trace's JSON form, replay onto a freshly
// built DAG giving structurally equal IR, and malformed traces.
#include <gtest/gtest.h>

#include "ir/structural.h"
#include "schedule/replay.h"
#include "support/json.h"
#include "unit/lower/lower_test_util.h"

namespace tessel::schedule {
namespace {

using namespace tessel::testing;
using ir::Var;
using te::Tensor;

const ir::DataType f32 = ir::DataType::Float(32);

// ---- JSON -------------------------------------------------------------------------------

TEST(Json, WriteAndParseRoundTrip) {
  json::Value v = json::Object{{"name", "C.local"},
                               {"n", int64_t{-42}},
                               {"x", 0.5},
                               {"flags", json::Array{true, false, json::Value()}},
                               {"text", "quote \" backslash \\ newline \n tab \t"}};
  std::string text = json::write(v);
  EXPECT_EQ(text, R"({"name":"C.local","n":-42,"x":0.5,"flags":[true,false,null],)"
                  R"("text":"quote \" backslash \\ newline \n tab \t"})");
  EXPECT_EQ(json::parse(text), v);
  json::Value spaced = json::parse(" { \"a\" : [ 1 , 2.0e1 , \"\\u0041\" ] } ");
  EXPECT_EQ(spaced.find("a")->as_array()[1].as_double(), 20.0);
  EXPECT_EQ(spaced.find("a")->as_array()[2].as_string(), "A");
  EXPECT_TRUE(spaced.find("a")->as_array()[0].is_int());
}

TEST(Json, MalformedTextIsACompileError) {
  for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "tru", "\"open", "1 2", "{\"a\":01x}",
                          "99999999999999999999"}) {
    EXPECT_THROW(json::parse(bad), CompileError) << bad;
  }
  expect_compile_error([] { json::parse("[1, }"); }, "malformed JSON at offset 4");
}

// ---- traces -------------------------------------------------------------------------------

TEST(Trace, JsonFormOfASchedule) {
  Matmul mm(8, 8, 8);
  Schedule s({mm.C});
  s.split(mm.C, "i", 4);
  s.reorder(mm.C, {"i.inner", "i.outer"});
  s.cache_read(mm.B, "local", {mm.C}, Layout{}.split(1, 4).reorder({1, 0, 2}));
  s.vectorize(mm.C, "j");
  EXPECT_EQ(s.trace().to_json(),
            R"({"version":1,"steps":[)"
            R"({"primitive":"split","stage":"C","loop":"i","factor":4},)"
            R"({"primitive":"reorder","stage":"C","loops":["i.inner","i.outer"]},)"
            R"({"primitive":"cache_read","tensor":"B","scope":"local","readers":["C"],)"
            R"("layout":{"splits":[[1,4]],"order":[1,0,2]}},)"
            R"({"primitive":"vectorize","stage":"C","loop":"j"}]})");
  Trace back = Trace::from_json(s.trace().to_json());
  EXPECT_EQ(back, s.trace());
  EXPECT_EQ(back.to_json(), s.trace().to_json());
}

/// Builds a DAG, schedules it with `apply`, and checks that replaying the JSON trace onto a
/// second, freshly built copy of the DAG lowers to structurally equal IR.
void expect_replay_equal(const std::function<std::vector<Tensor>()>& build,
                         const std::function<void(Schedule&, const std::vector<Tensor>&)>& apply,
                         size_t num_outputs) {
  std::vector<Tensor> first = build();
  std::vector<Tensor> outputs(first.end() - num_outputs, first.end());
  Schedule s(outputs);
  apply(s, first);
  ir::PrimFunc f = lower::lower(s, first, "f");
  std::string json = s.trace().to_json();

  std::vector<Tensor> second = build();
  Schedule replayed = replay({second.end() - num_outputs, second.end()}, Trace::from_json(json));
  ir::PrimFunc g = lower::lower(replayed, second, "f");
  EXPECT_TRUE(ir::structural_equal(f, g)) << f << "\nreplayed:\n" << g;
  EXPECT_EQ(ir::structural_hash(f), ir::structural_hash(g));
  EXPECT_EQ(ir::to_string(f), ir::to_string(g));
  EXPECT_EQ(replayed.trace(), s.trace());
}

std::vector<Tensor> matmul_dag() {
  Matmul mm(37, 50, 19);
  return {mm.A, mm.B, mm.C};
}

TEST(Trace, ReplayBlockedMatmul) {
  expect_replay_equal(
      matmul_dag,
      [](Schedule& s, const std::vector<Tensor>& t) {
        Tensor Bp = s.cache_read(t[1], "global", {t[2]}, Layout{}.split(1, 16).reorder({1, 0, 2}));
        s.vectorize(Bp, "ax1.inner");
        Tensor CL = s.cache_write(t[2], "local");
        TileLoops tl = s.tile(t[2], "i", "j", 4, 16);
        s.parallel(t[2], tl.x_outer);
        s.vectorize(t[2], tl.y_inner);
        s.compute_at(CL, t[2], tl.y_outer);
        auto [ko, ki] = s.split(CL, "k", 4);
        s.reorder(CL, {ko, ki, "i", "j"});
        s.unroll(CL, ki);
        s.vectorize(CL, "j");
      },
      1);
}

TEST(Trace, ReplayRfactorFuseNparts) {
  expect_replay_equal(
      matmul_dag,
      [](Schedule& s, const std::vector<Tensor>& t) {
        auto [ko, ki] = s.split_nparts(t[2], "k", 3);
        Tensor rf = s.rfactor(t[2], ko, 2);
        std::string fused = s.fuse(rf, "i", "j");
        s.parallel(rf, fused);
        s.split(t[2], "j", 8);
      },
      1);
}

TEST(Trace, ReplayAttachAndInline) {
  auto build = [] {
    Tensor A = te::placeholder({12, 9}, f32, "A");
    Tensor P = te::compute(
        {12, 9}, [&](Var i, Var j) { return A(i, j) + 1.0f; }, "P");
    Tensor Q = te::compute(
        {12, 9}, [&](Var i, Var j) { return P(i, j) * 2.0f; }, "Q");
    Tensor O =
        te::compute({12, 9}, [&](Var i, Var j) { return Q(i, j) - P(i, j); }, "O", {"i", "j"});
    return std::vector<Tensor>{A, O};
  };
  expect_replay_equal(
      build,
      [](Schedule& s, const std::vector<Tensor>&) {
        s.compute_inline("Q");
        auto [io, ii] = s.split("O", "i", 5);
        s.compute_at("P", "O", io);
        s.compute_root("P");
        s.compute_at("P", "O", ii);
      },
      1);
}

TEST(Trace, ReplayOntoADagOfOtherShapes) {
  Matmul small(8, 16, 4), large(40, 33, 20);
  Schedule s({small.C});
  TileLoops t = s.tile(small.C, "i", "j", 4, 8);
  s.vectorize(small.C, t.y_inner);
  Schedule replayed = replay({large.C}, Trace::from_json(s.trace().to_json()));
  EXPECT_EQ(replayed.stage(large.C).leaves, s.stage(small.C).leaves);
  std::mt19937 rng(50);
  large.check(replayed, rng);
}

TEST(Trace, MalformedTracesNameTheStep) {
  Matmul mm(4, 4, 4);
  auto replay_text = [&](const std::string& text) { replay({mm.C}, Trace::from_json(text)); };
  expect_compile_error([&] { replay_text("[]"); }, "trace: expected a JSON object");
  expect_compile_error([&] { replay_text(R"({"version":2,"steps":[]})"); }, "\"version\": 1");
  expect_compile_error([&] { replay_text(R"({"version":1})"); }, "\"steps\" array");
  expect_compile_error([&] { replay_text(R"({"version":1,"steps":[{"stage":"C"}]})"); },
                       "trace step 0: missing \"primitive\"");
  expect_compile_error([&] { replay_text(R"({"version":1,"steps":[3]})"); },
                       "trace step 0: expected an object");
  expect_compile_error(
      [&] { replay_text(R"({"version":1,"steps":[{"primitive":"twist","stage":"C"}]})"); },
      "trace step 0 (twist): unknown primitive");
  expect_compile_error(
      [&] {
        replay_text(
            R"({"version":1,"steps":[{"primitive":"split","stage":"C","loop":"i","factor":2},)"
            R"({"primitive":"split","stage":"C","loop":"j"}]})");
      },
      "trace step 1 (split): missing argument 'factor'");
  expect_compile_error(
      [&] {
        replay_text(
            R"({"version":1,"steps":[{"primitive":"split","stage":"C","loop":"i","factor":"2"}]})");
      },
      "trace step 0 (split): argument 'factor' must be an integer, found string");
  expect_compile_error(
      [&] {
        replay_text(
            R"({"version":1,"steps":[{"primitive":"reorder","stage":"C","loops":["i",1]}]})");
      },
      "argument 'loops' must be an array of strings, found integer");
  expect_compile_error(
      [&] {
        replay_text(
            R"({"version":1,"steps":[{"primitive":"unroll","stage":"C","loop":"k","n":1}]})");
      },
      "trace step 0 (unroll): unexpected argument 'n'");
  expect_compile_error(
      [&] {
        replay_text(R"({"version":1,"steps":[{"primitive":"cache_read","tensor":"B",)"
                    R"("scope":"local","readers":["C"],"layout":{"splits":[[1]]}}]})");
      },
      "argument 'layout.splits' must be an array of [dim, factor]");
  // A well-formed step that is illegal on this DAG is a ScheduleError.
  expect_schedule_error(
      [&] {
        replay_text(
            R"({"version":1,"steps":[{"primitive":"split","stage":"C","loop":"q","factor":2}]})");
      },
      "C", "q", "no such loop");
}

}  // namespace
}  // namespace tessel::schedule

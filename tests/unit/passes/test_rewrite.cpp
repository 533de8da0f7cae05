// The rewrite engine with rules of the tests' own: fixed point, matches whose interior is
// read elsewhere refused, graph output names kept, the sweep bound; and the numeric check
// the rule tests rely on.
#include <gtest/gtest-spi.h>

#include "passes_test_util.h"

namespace tessel::passes {
namespace {

using namespace testing;

/// Neg(Neg(x)) -> x.
RewriteRule double_negation() {
  RewriteRule rule;
  rule.name = "double_negation";
  rule.anchor = "Neg";
  rule.match = [](const MatchContext& ctx, const graph::Node& node) -> std::optional<Match> {
    const graph::Node* inner = ctx.producer(node.inputs[0], "Neg");
    if (!inner || ctx.is_graph_output(node.outputs[0])) return std::nullopt;
    Match match;
    match.interior = {inner};
    match.values = {inner->inputs[0]};
    return match;
  };
  rule.replace = [](const Match& match, Rewriter& rw) { rw.forward(0, match.values[0]); };
  return rule;
}

/// Exp(x) -> Exp(Identity(x)) (a rule that always applies).
RewriteRule endless() {
  RewriteRule rule;
  rule.name = "endless";
  rule.anchor = "Exp";
  rule.match = [](const MatchContext&, const graph::Node&) -> std::optional<Match> {
    return Match{};
  };
  rule.replace = [](const Match& match, Rewriter& rw) {
    graph::Value* copy = rw.op("Identity", {rw.value(match.anchor->inputs[0])});
    rw.add_node("Exp", {copy}, {rw.output(0)});
  };
  return rule;
}

TEST(Rewrite, AppliesRulesToAFixedPoint) {
  TestGraph t;
  graph::Value* v = t.input("x", {3});
  for (const char* name : {"n1", "n2", "n3", "n4", "n5"}) v = t.op("Neg", name, {v});
  t.output(t.op("Relu", "y", {v}));
  graph::Graph rewritten = rewrite(t.g, {double_negation()});
  EXPECT_EQ(graph::to_string(rewritten), R"(graph g
  input %x: float32[3]
  %n1 = Neg(%x)
  %y = Relu(%n1)
  output %y: float32[3]
)");
  expect_same_results(t.g, rewritten);
}

TEST(Rewrite, RefusesMatchesWhoseInteriorIsReadElsewhere) {
  TestGraph t;
  graph::Value* x = t.input("x", {3});
  graph::Value* a = t.op("Neg", "a", {x});
  graph::Value* b = t.op("Neg", "b", {a});
  t.output(t.op("Add", "y", {a, b}));
  graph::Graph rewritten = rewrite(t.g, {double_negation()});
  EXPECT_EQ(graph::to_string(rewritten), graph::to_string(infer_types(t.g)));
}

TEST(Rewrite, StopsAfterTheSweepBound) {
  TestGraph t;
  graph::Value* x = t.input("x", {3});
  t.output(t.op("Exp", "y", {x}));
  graph::Graph rewritten = rewrite(t.g, {endless()});
  int identities = 0;
  for (const auto& node : rewritten.nodes()) identities += node->op_type == "Identity";
  EXPECT_EQ(identities, kMaxSweeps);
  expect_same_results(t.g, rewritten);
}

TEST(Rewrite, DefaultRulesLeaveOtherGraphsAlone) {
  TestGraph t;
  graph::Value* x = t.input("x", {2, 4});
  graph::Value* s = t.op("Softmax", "s", {x}, {{"axis", Attribute::of_int(1)}});
  t.output(t.op("Add", "y", {s, t.random("c", {2, 4})}));
  graph::Graph typed = infer_types(t.g);
  EXPECT_EQ(graph::to_string(rewrite(t.g, default_rules())), graph::to_string(typed));
}

TEST(Rewrite, SameResultsCheckDetectsADifference) {
  TestGraph a, b;
  a.output(a.op("Abs", "y", {a.input("x", {1})}));
  b.output(b.op("Neg", "y", {b.op("Abs", "a", {b.input("x", {1})})}));
  EXPECT_NONFATAL_FAILURE(expect_same_results(a.g, b.g), "expected");
}

}  // namespace
}  // namespace tessel::passes

// eliminate_common_subexpressions: equal computations and equal constants merged; different
// attributes, data or graph outputs kept apart.
#include "passes/eliminate_common_subexpressions.h"
#include "passes/infer_types.h"
#include "passes_test_util.h"

namespace tessel::passes {
namespace {

using namespace testing;

TEST(EliminateCommonSubexpressions, MergesEqualNodesTransitively) {
  TestGraph t;
  graph::Value* x = t.input("x", {2, 3});
  graph::Value* a1 = t.op("Relu", "a1", {x});
  graph::Value* a2 = t.op("Relu", "a2", {x});
  graph::Value* b1 = t.op("Exp", "b1", {a1});
  graph::Value* b2 = t.op("Exp", "b2", {a2});
  t.output(t.op("Add", "y", {b1, b2}));
  graph::Graph merged = eliminate_common_subexpressions(t.g);
  EXPECT_EQ(graph::to_string(merged),
            "graph g\n"
            "  input %x: float32[2, 3]\n"
            "  %a1 = Relu(%x)\n"
            "  %b1 = Exp(%a1)\n"
            "  %y = Add(%b1, %b1)\n"
            "  output %y: float32[]\n");
  expect_same_results(t.g, infer_types(merged));
}

TEST(EliminateCommonSubexpressions, MergesEqualConstants) {
  TestGraph t;
  graph::Value* x = t.input("x", {3});
  graph::Value* c1 = t.constant("c1", kF32, {3}, {1, 2, 3});
  graph::Value* c2 = t.constant("c2", kF32, {3}, {1, 2, 3});
  graph::Value* c3 = t.constant("c3", kF32, {3}, {1, 2, 4});
  graph::Value* m1 = t.op("Mul", "m1", {x, c1});
  graph::Value* m2 = t.op("Mul", "m2", {x, c2});
  graph::Value* m3 = t.op("Mul", "m3", {x, c3});
  t.output(t.op("Sum", "y", {m1, m2, m3}));
  graph::Graph merged = eliminate_common_subexpressions(t.g);
  EXPECT_EQ(graph::to_string(merged),
            "graph g\n"
            "  input %x: float32[3]\n"
            "  const %c1: float32[3]\n"
            "  const %c3: float32[3]\n"
            "  %m1 = Mul(%x, %c1)\n"
            "  %m3 = Mul(%x, %c3)\n"
            "  %y = Sum(%m1, %m1, %m3)\n"
            "  output %y: float32[]\n");
  expect_same_results(t.g, infer_types(merged));
}

TEST(EliminateCommonSubexpressions, KeepsDifferentAttributesAndGraphOutputs) {
  TestGraph t;
  graph::Value* x = t.input("x", {4, 4});
  graph::Value* s0 = t.op("Softmax", "s0", {x}, {{"axis", Attribute::of_int(0)}});
  graph::Value* s1 = t.op("Softmax", "s1", {x}, {{"axis", Attribute::of_int(1)}});
  graph::Value* n1 = t.op("Neg", "n1", {x});
  graph::Value* n2 = t.op("Neg", "n2", {x});
  t.output(s0);
  t.output(s1);
  t.output(n1);
  t.output(n2);
  graph::Graph merged = eliminate_common_subexpressions(t.g);
  EXPECT_EQ(graph::to_string(merged), graph::to_string(t.g));
}

TEST(EliminateCommonSubexpressions, KeepsRandomOperatorsApart) {
  TestGraph t;
  graph::Value* x = t.input("x", {4});
  graph::Value* r1 = t.op("RandomUniformLike", "r1", {x});
  graph::Value* r2 = t.op("RandomUniformLike", "r2", {x});
  t.output(t.op("Add", "y", {r1, r2}));
  EXPECT_EQ(graph::to_string(eliminate_common_subexpressions(t.g)), graph::to_string(t.g));
}

}  // namespace
}  // namespace tessel::passes

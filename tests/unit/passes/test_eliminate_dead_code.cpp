// eliminate_dead_code: nodes reaching no output and unused constants go; graph inputs and
// multi-output nodes with one used output stay.
#include "passes/eliminate_dead_code.h"
#include "passes_test_util.h"

namespace tessel::passes {
namespace {

using namespace testing;

TEST(EliminateDeadCode, DropsUnreachableNodesAndConstants) {
  TestGraph t;
  graph::Value* x = t.input("x", {2, 3});
  t.input("unused", {1});
  graph::Value* w = t.random("w", {3});
  graph::Value* dead = t.op("Mul", "dead", {x, w});
  t.op("Relu", "dead2", {dead});
  t.random("never_read", {5});
  t.output(t.op("Relu", "y", {x}));
  graph::Graph live = eliminate_dead_code(t.g);
  EXPECT_EQ(graph::to_string(live),
            "graph g\n"
            "  input %x: float32[2, 3]\n"
            "  input %unused: float32[1]\n"
            "  %y = Relu(%x)\n"
            "  output %y: float32[]\n");
}

TEST(EliminateDeadCode, KeepsNodesWithOneLiveOutput) {
  TestGraph t;
  graph::Value* x = t.input("x", {4, 2});
  std::vector<graph::Value*> parts =
      t.ops("Split", {"a", "b"}, {x}, {{"axis", Attribute::of_int(0)}});
  t.op("Neg", "unused_neg", {parts[0]});
  t.output(parts[1]);
  graph::Graph live = eliminate_dead_code(t.g);
  EXPECT_EQ(graph::to_string(live),
            "graph g\n"
            "  input %x: float32[4, 2]\n"
            "  %a, %b = Split(%x) {axis = 0}\n"
            "  output %b: float32[]\n");
}

}  // namespace
}  // namespace tessel::passes

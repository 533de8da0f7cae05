// merge_transposes, merge_reshapes_*, remove_no_op_*: chains of data movement collapsed.
#include "passes_test_util.h"

namespace tessel::passes {
namespace {

using namespace testing;

Attributes perm(std::vector<int64_t> p) {
  return {{"perm", Attribute::of_ints(std::move(p))}};
}

TEST(LayoutRules, TransposePairMerged) {
  TestGraph t;
  graph::Value* x = t.input("x", {2, 3, 4});
  graph::Value* a = t.op("Transpose", "a", {x}, perm({1, 2, 0}));
  t.output(t.op("Transpose", "y", {a}, perm({0, 2, 1})));
  expect_rewrite(t.g, R"(graph g
  input %x: float32[2, 3, 4]
  %a = Transpose(%x) {perm = [1, 2, 0]}
  %y = Transpose(%a) {perm = [0, 2, 1]}
  output %y: float32[3, 2, 4]
)",
                 R"(graph g
  input %x: float32[2, 3, 4]
  %y = Transpose(%x) {perm = [1, 0, 2]}
  output %y: float32[3, 2, 4]
)");
}

TEST(LayoutRules, InverseTransposesRemoved) {
  TestGraph t;
  graph::Value* x = t.input("x", {2, 3, 4});
  graph::Value* a = t.op("Transpose", "a", {x}, perm({2, 0, 1}));
  graph::Value* b = t.op("Transpose", "b", {a}, perm({1, 2, 0}));
  graph::Value* c = t.op("Transpose", "c", {t.op("Exp", "e", {b})});
  graph::Value* d = t.op("Transpose", "d", {c});
  t.output(d);
  expect_rewrite(t.g, R"(graph g
  input %x: float32[2, 3, 4]
  %a = Transpose(%x) {perm = [2, 0, 1]}
  %b = Transpose(%a) {perm = [1, 2, 0]}
  %e = Exp(%b)
  %c = Transpose(%e)
  %d = Transpose(%c)
  output %d: float32[2, 3, 4]
)",
                 // %d is a graph output: its merged identity Transpose stays to keep the name.
                 R"(graph g
  input %x: float32[2, 3, 4]
  %e = Exp(%x)
  %d = Transpose(%e) {perm = [0, 1, 2]}
  output %d: float32[2, 3, 4]
)");
}

TEST(LayoutRules, ReshapeChainsMerged) {
  TestGraph t;
  graph::Value* x = t.input("x", {2, 3, 4});
  graph::Value* f = t.op("Flatten", "f", {x}, {{"axis", Attribute::of_int(2)}});
  graph::Value* r = t.op("Reshape", "r", {f, t.ints("s1", {4, 6})});
  graph::Value* u = t.op("Unsqueeze", "u", {r, t.ints("axes", {0})});
  graph::Value* e = t.op("Exp", "e", {u});
  graph::Value* s = t.op("Squeeze", "s", {e, t.ints("axes0", {0})});
  t.output(t.op("Reshape", "y", {s, t.ints("s2", {2, 12})}));
  expect_rewrite(t.g, R"(graph g
  input %x: float32[2, 3, 4]
  const %s1: int64[2]
  const %axes: int64[1]
  const %axes0: int64[1]
  const %s2: int64[2]
  %f = Flatten(%x) {axis = 2}
  %r = Reshape(%f, %s1)
  %u = Unsqueeze(%r, %axes)
  %e = Exp(%u)
  %s = Squeeze(%e, %axes0)
  %y = Reshape(%s, %s2)
  output %y: float32[2, 12]
)",
                 R"(graph g
  input %x: float32[2, 3, 4]
  const %u.c_0: int64[3]
  const %y.c: int64[2]
  %u = Reshape(%x, %u.c_0)
  %e = Exp(%u)
  %y = Reshape(%e, %y.c)
  output %y: float32[2, 12]
)");
}

TEST(LayoutRules, ReshapeBackToTheInputShapeRemoved) {
  TestGraph t;
  graph::Value* x = t.input("x", {2, 6});
  graph::Value* a = t.op("Reshape", "a", {x, t.ints("s1", {3, 4})});
  graph::Value* b = t.op("Reshape", "b", {a, t.ints("s2", {2, 6})});
  t.output(t.op("Relu", "y", {b}));
  graph::Graph rewritten = rewrite_and_fold(t.g);
  EXPECT_EQ(graph::to_string(rewritten), R"(graph g
  input %x: float32[2, 6]
  %y = Relu(%x)
  output %y: float32[2, 6]
)");
  expect_same_results(t.g, rewritten);
}

}  // namespace
}  // namespace tessel::passes

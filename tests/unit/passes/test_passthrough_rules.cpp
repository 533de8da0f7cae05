// remove_identity, remove_dropout, remove_zero_pad: pass-through operators removed, except
// where their output is a graph output or (Dropout) the mask is used or training is on.
#include "passes_test_util.h"

namespace tessel::passes {
namespace {

using namespace testing;

TEST(PassthroughRules, IdentityChainRemoved) {
  TestGraph t;
  graph::Value* x = t.input("x", {2, 3});
  graph::Value* a = t.op("Identity", "a", {x});
  graph::Value* b = t.op("Identity", "b", {a});
  graph::Value* c = t.op("Relu", "c", {b});
  t.output(t.op("Identity", "y", {c}));
  expect_rewrite(t.g, R"(graph g
  input %x: float32[2, 3]
  %a = Identity(%x)
  %b = Identity(%a)
  %c = Relu(%b)
  %y = Identity(%c)
  output %y: float32[2, 3]
)",
                 R"(graph g
  input %x: float32[2, 3]
  %c = Relu(%x)
  %y = Identity(%c)
  output %y: float32[2, 3]
)");
}

TEST(PassthroughRules, InferenceDropoutRemoved) {
  TestGraph t;
  graph::Value* x = t.input("x", {4});
  graph::Value* old = t.op("Dropout", "d7", {x}, {{"ratio", Attribute::of_float(0.3)}}, 7);
  graph::Value* training = t.constant("training", ir::DataType::Bool(), {}, {0});
  std::vector<graph::Value*> d13 =
      t.ops("Dropout", {"d13", "mask"}, {old, t.scalar("ratio", 0.5), training});
  t.output(t.op("Exp", "y", {d13[0]}));
  EXPECT_EQ(graph::to_string(infer_types(t.g)), R"(graph g
  input %x: float32[4]
  const %ratio: float32[]
  const %training: bool[]
  %d7 = Dropout(%x) {ratio = 0.3}
  %d13, %mask = Dropout(%d7, %ratio, %training)
  %y = Exp(%d13)
  output %y: float32[4]
)");
  EXPECT_EQ(graph::to_string(rewrite_and_fold(t.g)), R"(graph g
  input %x: float32[4]
  %y = Exp(%x)
  output %y: float32[4]
)");
  expect_same_results(t.g, rewrite_and_fold(t.g));
}

TEST(PassthroughRules, DropoutWithUsedMaskKept) {
  TestGraph t;
  graph::Value* x = t.input("x", {4});
  std::vector<graph::Value*> d = t.ops("Dropout", {"d", "mask"}, {x});
  t.output(t.op("Exp", "y", {d[0]}));
  t.output(d[1]);
  graph::Graph rewritten = rewrite_and_fold(t.g);
  EXPECT_NE(graph::to_string(rewritten).find("Dropout"), std::string::npos);
}

TEST(PassthroughRules, PadOfZeroPadsRemovedAndOthersKept) {
  TestGraph t;
  graph::Value* x = t.input("x", {1, 2, 4, 4});
  graph::Value* none = t.constant("none", ir::DataType::Int(64), {8}, {0, 0, 0, 0, 0, 0, 0, 0});
  graph::Value* some = t.constant("some", ir::DataType::Int(64), {8}, {0, 0, 1, 0, 0, 0, 0, 1});
  graph::Value* same = t.op("Pad", "same", {x, none}, {{"mode", Attribute::of_string("constant")}});
  t.output(t.op("Pad", "y", {t.op("Relu", "r", {same}), some}));
  graph::Graph rewritten = rewrite_and_fold(t.g);
  EXPECT_EQ(graph::to_string(rewritten), R"(graph g
  input %x: float32[1, 2, 4, 4]
  const %some: int64[8]
  %r = Relu(%x)
  %y = Pad(%r, %some)
  output %y: float32[1, 2, 5, 5]
)");
  expect_same_results(t.g, rewritten);
}

}  // namespace
}  // namespace tessel::passes

// convert_conv_layout: convolutions and the element-wise operators between them in the
// blocked layout NCHW[x]c, the layout changes placed once each, results unchanged.
#include "passes/convert_conv_layout.h"
#include "passes/infer_types.h"
#include "passes/pipeline.h"
#include "passes_test_util.h"
#include "target/parse_target.h"

namespace tessel::passes {
namespace {

using namespace testing;

Attributes conv_attrs(int64_t pad, int64_t stride = 1, int64_t group = 1) {
  return {{"pads", Attribute::of_ints({pad, pad, pad, pad})},
          {"strides", Attribute::of_ints({stride, stride})},
          {"group", Attribute::of_int(group)}};
}

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// The target whose vectors hold `lanes` floats.
target::Target target_of_lanes(int lanes) {
  return target::parse_target(lanes == 16 ? "x86-64-avx512" : "x86-64-avx2");
}

/// `g` typed and converted for `target`; the typed result is checked against `g` on random
/// inputs (within `rtol`).
graph::Graph converted(const graph::Graph& g, double rtol = 1e-4,
                       const target::Target& target = target::host()) {
  graph::Graph typed = infer_types(g);
  graph::Graph result = infer_types(convert_conv_layout(typed, target));
  expect_same_results(typed, result, rtol);
  return result;
}

TEST(ConvertConvLayout, ResidualBlockStaysBlockedBetweenOneTransformEachWay) {
  // A batch of two images.
  TestGraph t;
  graph::Value* x = t.input("x", {2, 16, 6, 6});
  graph::Value* a =
      t.op("Conv", "a", {x, t.random("w1", {16, 16, 3, 3}), t.random("b1", {16})}, conv_attrs(1));
  graph::Value* r = t.op("Relu", "r", {a});
  graph::Value* c = t.op("Conv", "c", {r, t.random("w2", {16, 16, 3, 3})}, conv_attrs(1));
  graph::Value* s = t.op("Add", "s", {c, x});
  t.output(t.op("Relu", "y", {s}));
  EXPECT_EQ(graph::to_string(converted(t.g)), R"(graph g
  input %x: float32[2, 16, 6, 6]
  const %w1: float32[16, 16, 3, 3]
  const %b1: float32[16]
  const %w2: float32[16, 16, 3, 3]
  %x_nchwc = tessel.LayoutToNCHWc(%x) {block = 16}
  %a_nchwc = tessel.Conv2dNCHWc(%x_nchwc, %w1, %b1) {block = 16, depthwise = 0, pad = 1, stride = 1}
  %r_nchwc = Relu(%a_nchwc)
  %c_nchwc = tessel.Conv2dNCHWc(%r_nchwc, %w2) {block = 16, depthwise = 0, pad = 1, stride = 1}
  %s_nchwc = Add(%c_nchwc, %x_nchwc)
  %y_nchwc = Relu(%s_nchwc)
  %y = tessel.LayoutFromNCHWc(%y_nchwc) {channels = 16}
  output %y: float32[2, 16, 6, 6]
)");
}

TEST(ConvertConvLayout, FewInputChannelsAreReadInNchwAndDepthwiseKeepsTheBlock) {
  // An image stem: 3 channels (not blocked), then a strided conv to 24 channels (blocks of
  // 8 on AVX2, of 16 on AVX-512), a Clip, a depthwise conv, and an NCHW reader in between.
  TestGraph t;
  graph::Value* x = t.input("x", {1, 3, 9, 9});
  graph::Value* a = t.op("Conv", "a", {x, t.random("w1", {24, 3, 3, 3})}, conv_attrs(1, 2));
  graph::Value* k = t.op("Clip", "k", {a, t.scalar("lo", 0), t.scalar("hi", 6)});
  t.output(t.op("Softmax", "soft", {k}, {{"axis", Attribute::of_int(1)}}));
  t.output(t.op("Conv", "d", {k, t.random("w2", {24, 1, 3, 3})}, conv_attrs(1, 1, 24)));
  for (int lanes : {8, 16}) {
    std::string block = std::to_string(lanes == 16 ? 16 : 8);
    EXPECT_EQ(graph::to_string(converted(t.g, 1e-4, target_of_lanes(lanes))),
              R"(graph g
  input %x: float32[1, 3, 9, 9]
  const %w1: float32[24, 3, 3, 3]
  const %lo: float32[]
  const %hi: float32[]
  const %w2: float32[24, 1, 3, 3]
  %a_nchwc = tessel.Conv2dNCHWc(%x, %w1) {block = )" +
                  block +
                  R"(, depthwise = 0, pad = 1, stride = 2}
  %k_nchwc = Clip(%a_nchwc, %lo, %hi)
  %k = tessel.LayoutFromNCHWc(%k_nchwc) {channels = 24}
  %soft = Softmax(%k) {axis = 1}
  %d_nchwc = tessel.Conv2dNCHWc(%k_nchwc, %w2) {block = )" +
                  block +
                  R"(, depthwise = 1, pad = 1, stride = 1}
  %d = tessel.LayoutFromNCHWc(%d_nchwc) {channels = 24}
  output %soft: float32[1, 24, 5, 5]
  output %d: float32[1, 24, 5, 5]
)") << lanes
    << " lanes";
  }
}

TEST(ConvertConvLayout, ChannelsArePaddedToBlocksOf16WhenThatAddsLittle) {
  // 136 channels: 8 padding channels (at most 1/16 more) make 9 blocks of 16, which hold
  // zeros through the ReLU, the residual Add and the next convolution's reduction.
  TestGraph t;
  graph::Value* x = t.input("x", {1, 8, 4, 4});
  graph::Value* a =
      t.op("Conv", "a", {x, t.random("w1", {136, 8, 1, 1}), t.random("b1", {136})}, conv_attrs(0));
  graph::Value* r = t.op("Relu", "r", {a});
  graph::Value* c = t.op("Conv", "c", {r, t.random("w2", {136, 136, 3, 3})}, conv_attrs(1));
  t.output(t.op("Add", "y", {c, r}));
  std::string text = graph::to_string(converted(t.g));
  EXPECT_NE(text.find("%a_nchwc = tessel.Conv2dNCHWc(%x_nchwc, %w1, %b1) {block = 16, depthwise "
                      "= 0, pad = 0, stride = 1}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%y = tessel.LayoutFromNCHWc(%y_nchwc) {channels = 136}"), std::string::npos)
      << text;
  EXPECT_NE(text.find("%y_nchwc = Add(%c_nchwc, %r_nchwc)"), std::string::npos) << text;
}

TEST(ConvertConvLayout, PaddingChannelsMayHoldFiniteValuesOtherThanZero) {
  // Sigmoid makes the 8 padding channels of 136 one half; the next convolution multiplies
  // them by zero weights and the global pool keeps them apart.
  TestGraph t;
  graph::Value* x = t.input("x", {1, 8, 4, 4});
  graph::Value* a = t.op("Conv", "a", {x, t.random("w1", {136, 8, 1, 1})}, conv_attrs(0));
  graph::Value* g = t.op("Sigmoid", "g", {a});
  graph::Value* c = t.op("Conv", "c", {g, t.random("w2", {24, 136, 3, 3})}, conv_attrs(1));
  t.output(c);
  t.output(t.op("GlobalMaxPool", "m", {g}));
  std::string text = graph::to_string(converted(t.g));
  EXPECT_NE(text.find("%g_nchwc = Sigmoid(%a_nchwc)"), std::string::npos) << text;
  EXPECT_NE(text.find("%m_nchwc = MaxPool(%g_nchwc) {kernel_shape = [4, 4, 1]}"), std::string::npos)
      << text;
}

TEST(ConvertConvLayout, PoolsOfBlockedTensorsRunBlocked) {
  // ResNet's stem: a 7x7 strided conv, ReLU, a padded 3x3 MaxPool, then a conv.
  TestGraph t;
  graph::Value* x = t.input("x", {1, 3, 12, 12});
  graph::Value* a = t.op("Conv", "a", {x, t.random("w1", {16, 3, 7, 7})}, conv_attrs(3, 2));
  graph::Value* r = t.op("Relu", "r", {a});
  graph::Value* m = t.op("MaxPool", "m", {r},
                         {{"kernel_shape", Attribute::of_ints({3, 3})},
                          {"pads", Attribute::of_ints({1, 1, 1, 1})},
                          {"strides", Attribute::of_ints({2, 2})}});
  graph::Value* v = t.op(
      "AveragePool", "v", {m},
      {{"kernel_shape", Attribute::of_ints({2, 2})}, {"pads", Attribute::of_ints({0, 0, 1, 1})}});
  t.output(t.op("Conv", "c", {v, t.random("w2", {16, 16, 1, 1})}, conv_attrs(0)));
  std::string text = graph::to_string(converted(t.g));
  EXPECT_NE(text.find("%m_nchwc = MaxPool(%r_nchwc) {kernel_shape = [3, 3, 1], pads = [1, 1, 0, "
                      "1, 1, 0], strides = [2, 2, 1]}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%v_nchwc = AveragePool(%m_nchwc) {kernel_shape = [2, 2, 1], pads = [0, 0, "
                      "0, 1, 1, 0]}"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("LayoutToNCHWc"), std::string::npos) << text;
}

TEST(ConvertConvLayout, ChannelConcatOfBlockedTensorsConcatenatesBlocks) {
  // SqueezeNet's fire module: a squeeze conv, two expand convs, their outputs concatenated.
  // Tensors of different blocks are gathered into the output's blocks (AVX2's: 24
  // channels take blocks of 8); a Concat with an NCHW input leaves the layout.
  const target::Target avx2 = target::parse_target("x86-64-avx2");
  TestGraph t;
  graph::Value* x = t.input("x", {1, 16, 5, 5});
  graph::Value* s =
      t.op("Relu", "s", {t.op("Conv", "sq", {x, t.random("w1", {8, 16, 1, 1})}, conv_attrs(0))});
  graph::Value* e1 = t.op("Conv", "e1", {s, t.random("w2", {16, 8, 1, 1})}, conv_attrs(0));
  graph::Value* e3 = t.op("Conv", "e3", {s, t.random("w3", {16, 8, 3, 3})}, conv_attrs(1));
  graph::Value* e8 = t.op("Conv", "e8", {s, t.random("w4", {8, 8, 1, 1})}, conv_attrs(0));
  t.output(t.op("Concat", "fire", {e1, e3}, {{"axis", Attribute::of_int(1)}}));
  t.output(t.op("Concat", "mixed", {e1, e8}, {{"axis", Attribute::of_int(1)}}));
  graph::Value* z = t.input("z", {1, 16, 5, 5});
  t.output(t.op("Concat", "with_input", {e1, z}, {{"axis", Attribute::of_int(1)}}));
  std::string text = graph::to_string(converted(t.g, 1e-4, avx2));
  EXPECT_NE(text.find("%fire_nchwc = Concat(%e1_nchwc, %e3_nchwc) {axis = 1}"), std::string::npos)
      << text;
  EXPECT_NE(text.find("%mixed_nchwc = tessel.ChannelGatherNCHWc(%e1_nchwc, %e8_nchwc) {block = 8, "
                      "channels = [16, 8], count = 24, groups = 1, start = 0}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%with_input = Concat(%e1, %z)"), std::string::npos) << text;
}

/// ShuffleNetV2's unit on halves of `half` channels (136: blocked by 16, not whole blocks,
/// 8.5 of them): the two halves of x concatenated (one through a conv), shuffled in two
/// groups, split. With `shuffle_read_elsewhere`, the shuffle's Transpose is also a graph
/// output.
graph::Graph shuffle_unit(bool shuffle_read_elsewhere, int64_t half = 136) {
  TestGraph t;
  graph::Value* x = t.input("x", {1, 8, 3, 3});
  graph::Value* a = t.op("Conv", "a", {x, t.random("w1", {2 * half, 8, 1, 1})}, conv_attrs(0));
  graph::Value* left =
      t.op("Slice", "left", {a, t.ints("s0", {0}), t.ints("e0", {half}), t.ints("axis", {1})});
  graph::Value* right = t.op(
      "Slice", "right", {a, t.ints("s1", {half}), t.ints("e1", {2 * half}), t.ints("axis1", {1})});
  graph::Value* b = t.op(
      "Relu", "b", {t.op("Conv", "c", {right, t.random("w2", {half, half, 1, 1})}, conv_attrs(0))});
  graph::Value* joined = t.op("Concat", "joined", {left, b}, {{"axis", Attribute::of_int(1)}});
  graph::Value* split = t.op("Reshape", "split", {joined, t.ints("groups", {1, 2, half, 3, 3})});
  graph::Value* swapped =
      t.op("Transpose", "swapped", {split}, {{"perm", Attribute::of_ints({0, 2, 1, 3, 4})}});
  graph::Value* shuffled =
      t.op("Reshape", "shuffled", {swapped, t.ints("merged", {1, 2 * half, 3, 3})});
  graph::Value* first =
      t.op("Slice", "first",
           {shuffled, t.ints("s2", {-2 * half}), t.ints("e2", {half}), t.ints("axis2", {-3})});
  t.output(t.op("Conv", "y", {first, t.random("w3", {16, half, 1, 1})}, conv_attrs(0)));
  if (shuffle_read_elsewhere) t.output(swapped);
  return std::move(t.g);
}

TEST(ConvertConvLayout, ChannelShuffleConcatAndSlicesOfPartBlocksStayBlocked) {
  std::string text = graph::to_string(converted(shuffle_unit(false)));
  EXPECT_NE(text.find("%left_nchwc = tessel.ChannelGatherNCHWc(%a_nchwc) {block = 16, channels = "
                      "[272], count = 136, groups = 1, start = 0}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%right_nchwc = tessel.ChannelGatherNCHWc(%a_nchwc) {block = 16, channels = "
                      "[272], count = 136, groups = 1, start = 136}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%joined_nchwc = tessel.ChannelGatherNCHWc(%left_nchwc, %b_nchwc) {block = "
                      "16, channels = [136, 136], count = 272, groups = 1, start = 0}"),
            std::string::npos)
      << text;
  // The shuffle reads the concatenation's inputs, the slice of it too: the gathers of the
  // concatenation and of the whole shuffle have no readers left.
  EXPECT_NE(text.find("%shuffled_nchwc = tessel.ChannelGatherNCHWc(%left_nchwc, %b_nchwc) {block "
                      "= 16, channels = [136, 136], count = 272, groups = 2, start = 0}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%first_nchwc = tessel.ChannelGatherNCHWc(%left_nchwc, %b_nchwc) {block = "
                      "16, channels = [136, 136], count = 136, groups = 2, start = 0}"),
            std::string::npos)
      << text;
  EXPECT_EQ(count_of(text, "(%joined_nchwc)"), 0) << text;
  EXPECT_EQ(count_of(text, "(%shuffled_nchwc)"), 0) << text;
  EXPECT_EQ(count_of(text, "tessel.Layout"), 2) << text;  // x in, y out
  // A shuffle whose 5-d values have other readers runs in NCHW.
  std::string kept = graph::to_string(converted(shuffle_unit(true)));
  EXPECT_NE(kept.find("%swapped = Transpose(%split)"), std::string::npos) << kept;
}

TEST(ConvertConvLayout, DefaultPipelineDropsGathersThatOthersReadThrough) {
  // The gathers of the concatenation and of the whole shuffle lose their readers to the
  // slice's gather; the pipeline's dead-code pass after the conversion removes them.
  std::string text =
      graph::to_string(run_pipeline(shuffle_unit(false), default_pipeline(target::host())));
  EXPECT_EQ(count_of(text, "tessel.ChannelGatherNCHWc"), 3) << text;  // left, right, first
  EXPECT_EQ(text.find("%joined_nchwc ="), std::string::npos) << text;
  EXPECT_EQ(text.find("%shuffled_nchwc ="), std::string::npos) << text;
}

TEST(ConvertConvLayout, PaddedChannelCountsTakeTheBlockTheVectorWidthFavours) {
  // ShuffleNetV2's 58 and 116 channels: blocks of 16 on AVX-512 (58 -> 64, 116 -> 128: a
  // block of 8 would leave half of each vector idle), of 8 on AVX2 (58 -> 64, 116 -> 120);
  // blocked throughout either way.
  for (int lanes : {8, 16}) {
    std::string text =
        graph::to_string(converted(shuffle_unit(false, 58), 1e-4, target_of_lanes(lanes)));
    std::string block = "{block = " + std::to_string(lanes == 16 ? 16 : 8);
    EXPECT_NE(text.find("%a_nchwc = tessel.Conv2dNCHWc(%x_nchwc, %w1) " + block), std::string::npos)
        << lanes << " lanes\n"
        << text;
    EXPECT_NE(text.find("%c_nchwc = tessel.Conv2dNCHWc(%right_nchwc, %w2) " + block),
              std::string::npos)
        << lanes << " lanes\n"
        << text;
    EXPECT_EQ(count_of(text, "tessel.Layout"), 2) << lanes << " lanes\n" << text;
  }
}

TEST(ConvertConvLayout, SqueezeAndExcitationStaysBlocked) {
  // An EfficientNet block: a convolution with x * sigmoid(x), the squeeze (global pool, a
  // reducing 1x1 convolution to 4 channels, padded to a block of 8 as a vector of one pixel
  // per channel, ReLU, an expanding one, sigmoid) and the
  // excitation (the per-channel scale), a per-channel constant shift, a division by a
  // scalar, then a projecting convolution: blocked from the input's change to the output's.
  TestGraph t;
  graph::Value* x = t.input("x", {1, 16, 6, 6});
  graph::Value* a = t.op("Conv", "a", {x, t.random("w1", {16, 16, 3, 3})}, conv_attrs(1));
  graph::Value* silu = t.op("Mul", "silu", {a, t.op("Sigmoid", "gate", {a})});
  graph::Value* pooled = t.op("GlobalAveragePool", "pooled", {silu});
  graph::Value* reduced =
      t.op("Conv", "reduce", {pooled, t.random("w2", {4, 16, 1, 1})}, conv_attrs(0));
  graph::Value* squeezed = t.op("Relu", "squeezed", {reduced});
  graph::Value* scale =
      t.op("Sigmoid", "scale",
           {t.op("Conv", "expand", {squeezed, t.random("w3", {16, 4, 1, 1})}, conv_attrs(0))});
  graph::Value* excited = t.op("Mul", "excited", {silu, scale});
  graph::Value* shifted = t.op("Add", "shifted", {excited, t.random("shift", {1, 16, 1, 1})});
  graph::Value* halved = t.op("Div", "halved", {shifted, t.scalar("two", 2)});
  t.output(t.op("Conv", "project", {halved, t.random("w4", {16, 16, 1, 1})}, conv_attrs(0)));
  std::string text = graph::to_string(converted(t.g));
  EXPECT_NE(text.find("%pooled_nchwc = AveragePool(%silu_nchwc) {kernel_shape = [6, 6, 1]}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%reduce_nchwc = tessel.Conv2dNCHWc(%pooled_nchwc, %w2) {block = 8"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%excited_nchwc = Mul(%silu_nchwc, %scale_nchwc)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("%shifted_nchwc = Add(%excited_nchwc, %shift_nchwc)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("%halved_nchwc = Div(%shifted_nchwc, %two)"), std::string::npos) << text;
  // The input and the constant shift are blocked; only the output goes back.
  EXPECT_EQ(count_of(text, "tessel.LayoutToNCHWc"), 2) << text;
  EXPECT_EQ(count_of(text, "tessel.LayoutFromNCHWc"), 1) << text;
}

TEST(ConvertConvLayout, OperatorsThatMayMakePaddingInfiniteOrReadWholeNchwTensorsLeave) {
  // Exp and a division by a tensor could turn the padding channels' zeros into infinities;
  // an Add of a whole NCHW tensor runs NCHW rather than blocking that tensor; an operand
  // of rank 3 is not taken as per channel.
  TestGraph t;
  graph::Value* x = t.input("x", {1, 8, 5, 5});
  graph::Value* a = t.op("Conv", "a", {x, t.random("w", {8, 8, 1, 1})}, conv_attrs(0));
  graph::Value* b = t.op("Conv", "b", {x, t.random("v", {8, 8, 1, 1})}, conv_attrs(0));
  t.output(t.op("Exp", "e", {a}));
  t.output(t.op("Div", "q", {a, b}));
  t.output(t.op("Add", "s", {b, t.input("z", {1, 8, 5, 5})}));
  t.output(t.op("Add", "y", {b, t.random("shift", {8, 1, 1})}));
  std::string text = graph::to_string(converted(t.g));
  for (const char* expected :
       {"%e = Exp(%a)", "%q = Div(%a, %b)", "%s = Add(%b, %z)", "%y = Add(%b, %shift)"})
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
}

TEST(ConvertConvLayout, AGatheredOperandIsBlockedInTheKernelThatComputesIt) {
  // ConvNeXt's residual: the block's channels-last result transposed back and scaled per
  // channel, added to the blocked input. The scaled transpose is blocked where it is
  // computed (its kernel writes the blocks), so the sum stays blocked for the next
  // convolution; a whole graph input is not (see above).
  TestGraph t;
  graph::Value* x = t.input("x", {1, 16, 4, 4});
  graph::Value* a = t.op("Conv", "a", {x, t.random("w1", {16, 16, 1, 1})}, conv_attrs(0));
  graph::Value* back = t.op("Transpose", "back", {t.input("nhwc", {1, 4, 4, 16})},
                            {{"perm", Attribute::of_ints({0, 3, 1, 2})}});
  graph::Value* scaled = t.op("Mul", "scaled", {back, t.random("gamma", {16, 1, 1})});
  graph::Value* sum = t.op("Add", "sum", {a, scaled});
  t.output(t.op("Conv", "c", {sum, t.random("w2", {16, 16, 1, 1})}, conv_attrs(0)));
  std::string text = graph::to_string(converted(t.g));
  for (const char* expected :
       {"%scaled_nchwc = tessel.LayoutToNCHWc(%scaled) {block = 16}",
        "%sum_nchwc = Add(%a_nchwc, %scaled_nchwc)", "tessel.Conv2dNCHWc(%sum_nchwc, %w2)"})
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  EXPECT_EQ(count_of(text, "tessel.LayoutFromNCHWc"), 1) << text;
}

TEST(ConvertConvLayout, ReductionsOverTheImageRunAsBlockedPools) {
  // ShuffleNet's x.mean([2, 3]) before the classifier: the pool reads the blocks, and only
  // one value per channel changes layout. A reduction over the channels leaves the layout.
  TestGraph t;
  graph::Value* x = t.input("x", {1, 16, 5, 5});
  graph::Value* a = t.op("Conv", "a", {x, t.random("w1", {16, 16, 1, 1})}, conv_attrs(0));
  t.output(t.op("ReduceMean", "mean", {a},
                {{"axes", Attribute::of_ints({2, 3})}, {"keepdims", Attribute::of_int(0)}}));
  t.output(t.op("ReduceMax", "max", {a}, {{"axes", Attribute::of_ints({-1, -2})}}));
  t.output(t.op("ReduceMean", "channels", {a}, {{"axes", Attribute::of_ints({1})}}));
  std::string text = graph::to_string(converted(t.g));
  for (const char* expected :
       {"%mean_nchwc = AveragePool(%a_nchwc) {kernel_shape = [5, 5, 1]}",
        "%mean_nchw = tessel.LayoutFromNCHWc(%mean_nchwc) {channels = 16}",
        "%mean = Flatten(%mean_nchw)", "%max_nchwc = MaxPool(%a_nchwc) {kernel_shape = [5, 5, 1]}",
        "%channels = ReduceMean(%a)"})
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
}

TEST(ConvertConvLayout, GroupedConvolutionsRunBlockedWhereBlocksHoldWholeGroups) {
  // ResNeXt's groups of 4 channels (4 groups per block of 16), groups of a block each, and
  // groups of 6 output channels, which blocks of 8 cannot hold: NCHW.
  TestGraph t;
  graph::Value* x = t.input("x", {1, 32, 6, 6});
  graph::Value* a = t.op("Conv", "a", {x, t.random("w1", {32, 32, 1, 1})}, conv_attrs(0));
  graph::Value* g1 = t.op(
      "Relu", "r", {t.op("Conv", "g1", {a, t.random("w2", {32, 4, 3, 3})}, conv_attrs(1, 1, 8))});
  graph::Value* g2 = t.op("Conv", "g2", {g1, t.random("w3", {32, 16, 3, 3})}, conv_attrs(1, 2, 2));
  t.output(t.op("Conv", "g3", {g2, t.random("w4", {24, 8, 1, 1})}, conv_attrs(0, 1, 4)));
  // RegNet's last stage: 17 groups of 8 in 136 channels, whose last block of 16 holds one
  // group and 8 padding channels.
  graph::Value* y = t.input("y", {1, 8, 4, 4});
  graph::Value* b = t.op("Conv", "b", {y, t.random("w5", {136, 8, 1, 1})}, conv_attrs(0));
  t.output(t.op("Conv", "g4", {b, t.random("w6", {136, 8, 3, 3})}, conv_attrs(1, 1, 17)));
  std::string text = graph::to_string(converted(t.g));
  EXPECT_NE(text.find("%g4_nchwc = tessel.Conv2dNCHWc(%b_nchwc, %w6) {block = 16, depthwise = 0, "
                      "groups = 17, pad = 1, stride = 1}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%g1_nchwc = tessel.Conv2dNCHWc(%a_nchwc, %w2) {block = 16, depthwise = 0, "
                      "groups = 8, pad = 1, stride = 1}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%g2_nchwc = tessel.Conv2dNCHWc(%r_nchwc, %w3) {block = 16, depthwise = 0, "
                      "groups = 2, pad = 1, stride = 2}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%g3 = Conv(%g2, %w4)"), std::string::npos) << text;
}

TEST(ConvertConvLayout, DilatedConvolutionsRunBlocked) {
  // A segmentation backbone's last stage: a dilated depthwise 5x5 and a dilated 3x3, and a
  // strided dilated one.
  TestGraph t;
  graph::Value* x = t.input("x", {1, 16, 9, 9});
  auto dilated = [](int64_t pad, int64_t dilation, int64_t stride, int64_t group) {
    Attributes a = conv_attrs(pad, stride, group);
    a["dilations"] = Attribute::of_ints({dilation, dilation});
    return a;
  };
  graph::Value* a = t.op("Conv", "a", {x, t.random("w1", {16, 1, 5, 5})}, dilated(4, 2, 1, 16));
  graph::Value* b = t.op("Conv", "b", {a, t.random("w2", {16, 16, 3, 3})}, dilated(3, 3, 1, 1));
  t.output(t.op("Conv", "c", {b, t.random("w3", {16, 16, 3, 3})}, dilated(2, 2, 2, 1)));
  std::string text = graph::to_string(converted(t.g));
  EXPECT_NE(text.find("%a_nchwc = tessel.Conv2dNCHWc(%x_nchwc, %w1) {block = 16, depthwise = 1, "
                      "dilation = 2, pad = 4, stride = 1}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%c_nchwc = tessel.Conv2dNCHWc(%b_nchwc, %w3) {block = 16, depthwise = 0, "
                      "dilation = 2, pad = 2, stride = 2}"),
            std::string::npos)
      << text;
}

TEST(ConvertConvLayout, ThreeByThreeConvolutionsOfManyChannelsTakeWinograd) {
  // 32 channels on 16x16: F(4x4, 3x3); 64 channels on 7x7: F(2x2, 3x3), whose transformed
  // weights are smaller; a strided one and one of 16 channels stay direct.
  TestGraph t;
  graph::Value* x = t.input("x", {1, 32, 16, 16});
  graph::Value* a = t.op("Conv", "a", {x, t.random("w1", {32, 32, 3, 3})}, conv_attrs(1));
  graph::Value* b = t.op("Conv", "b", {a, t.random("w2", {64, 32, 3, 3})}, conv_attrs(0, 2));
  graph::Value* c = t.op("Conv", "c", {b, t.random("w3", {64, 64, 3, 3})}, conv_attrs(1));
  t.output(t.op("Conv", "d", {c, t.random("w4", {16, 64, 3, 3})}, conv_attrs(1)));
  graph::Graph typed = infer_types(t.g);
  // Winograd's transforms round differently from the direct sums: through four layers of
  // unnormalised values (outputs near 100), about 1e-3 relative.
  std::string text = graph::to_string(converted(t.g, 2e-3));
  EXPECT_NE(text.find("%a_nchwc = tessel.Conv2dNCHWc(%x_nchwc, %w1) {block = 16, depthwise = 0, "
                      "pad = 1, stride = 1, winograd = 4}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%c_nchwc = tessel.Conv2dNCHWc(%b_nchwc, %w3) {block = 16, depthwise = 0, "
                      "pad = 1, stride = 1, winograd = 2}"),
            std::string::npos)
      << text;
  EXPECT_EQ(count_of(text, "winograd"), 2) << text;
  ConvLayoutOptions direct;
  direct.winograd = false;
  std::string without =
      graph::to_string(infer_types(convert_conv_layout(typed, target::host(), direct)));
  EXPECT_EQ(count_of(without, "winograd"), 0) << without;
  EXPECT_EQ(count_of(without, "Conv2dNCHWc"), 4) << without;
}

TEST(ConvertConvLayout, ConvolutionsOutsideTheBlockedKernelStayNchw) {
  TestGraph t;
  graph::Value* x = t.input("x", {1, 8, 7, 7});
  // 5 output channels (no block divides them), asymmetric pads, unequal dilations, groups
  // of 6 output channels, which blocks of 8 cannot hold.
  t.output(t.op("Conv", "odd", {x, t.random("w1", {5, 8, 3, 3})}, conv_attrs(1)));
  t.output(t.op("Conv", "asym", {x, t.random("w2", {8, 8, 3, 3})},
                {{"pads", Attribute::of_ints({0, 1, 1, 0})}}));
  t.output(t.op("Conv", "dilated", {x, t.random("w3", {8, 8, 3, 3})},
                {{"dilations", Attribute::of_ints({2, 1})}}));
  t.output(t.op("Conv", "grouped", {x, t.random("w4", {24, 2, 3, 3})}, conv_attrs(1, 1, 4)));
  std::string text = graph::to_string(converted(t.g));
  EXPECT_EQ(text.find("NCHWc"), std::string::npos) << text;
}

/// The message infer_types gives for one tessel-domain node `op` (named `name`) of
/// `attributes` on `inputs`, its output a graph output.
std::string error_of_tessel_node(TestGraph& t, const std::string& name, const std::string& op,
                                 Attributes attributes, std::vector<graph::Value*> inputs) {
  graph::Node n;
  n.name = name;
  n.op_type = op;
  n.domain = "tessel";
  n.opset = 1;
  n.attributes = std::move(attributes);
  n.inputs = std::move(inputs);
  n.outputs = {t.g.add_value("y", {})};
  t.output(t.g.add_node(std::move(n))->outputs[0]);
  return error_of([&] { infer_types(t.g); });
}

TEST(ConvertConvLayout, LayoutOperatorsRejectInconsistentChannels) {
  TestGraph t;
  std::string message =
      error_of_tessel_node(t, "back", "LayoutFromNCHWc", {{"channels", Attribute::of_int(17)}},
                           {t.input("x", {1, 2, 3, 3, 8})});
  EXPECT_NE(message.find("'channels' is 17"), std::string::npos) << message;
  EXPECT_NE(message.find("back"), std::string::npos) << message;
}

TEST(ConvertConvLayout, ChannelGatherRejectsWindowsOutsideItsChannels) {
  TestGraph t;
  std::string message = error_of_tessel_node(t, "gather", "ChannelGatherNCHWc",
                                             {{"channels", Attribute::of_ints({12})},
                                              {"start", Attribute::of_int(8)},
                                              {"count", Attribute::of_int(8)},
                                              {"block", Attribute::of_int(8)}},
                                             {t.input("x", {1, 2, 3, 3, 8})});
  EXPECT_NE(message.find("channels 8 to 15 of 12"), std::string::npos) << message;
  EXPECT_NE(message.find("gather"), std::string::npos) << message;
  TestGraph u;
  message = error_of_tessel_node(u, "gather", "ChannelGatherNCHWc",
                                 {{"channels", Attribute::of_ints({20})},
                                  {"count", Attribute::of_int(8)},
                                  {"block", Attribute::of_int(8)}},
                                 {u.input("x", {1, 2, 3, 3, 8})});
  EXPECT_NE(message.find("is not 20 channels"), std::string::npos) << message;
}

TEST(ConvertConvLayout, BlockedConvolutionRejectsGroupsItsBlocksCannotHold) {
  // 4 groups of 6 output channels: a block of 8 would mix groups with partial ones.
  TestGraph t;
  std::string message =
      error_of_tessel_node(t, "grouped", "Conv2dNCHWc",
                           {{"block", Attribute::of_int(8)}, {"groups", Attribute::of_int(4)}},
                           {t.input("x", {1, 1, 5, 5, 8}), t.random("w", {24, 2, 3, 3})});
  EXPECT_NE(message.find("4 groups of weight [24, 2, 3, 3] do not fit"), std::string::npos)
      << message;
  EXPECT_NE(message.find("grouped"), std::string::npos) << message;
}

TEST(ConvertConvLayout, WinogradConvolutionRejectsKernelsItCannotTake) {
  TestGraph t;
  std::string message =
      error_of_tessel_node(t, "pointwise", "Conv2dNCHWc",
                           {{"block", Attribute::of_int(16)}, {"winograd", Attribute::of_int(4)}},
                           {t.input("x", {1, 2, 5, 5, 16}), t.random("w", {32, 32, 1, 1})});
  EXPECT_NE(message.find("'winograd' is 4"), std::string::npos) << message;
  EXPECT_NE(message.find("[32, 32, 1, 1]"), std::string::npos) << message;
  EXPECT_NE(message.find("pointwise"), std::string::npos) << message;
}

}  // namespace
}  // namespace tessel::passes

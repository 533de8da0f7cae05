// DepthToSpace, SpaceToDepth, ReverseSequence and Compress against naive references.
#include "unit/ops_test_util.h"

namespace tessel::ops::testing {
namespace {

TEST(DepthToSpace, DcrAndCrd) {
  Shape shape{2, 8, 2, 3};
  int64_t b = 2, c = 2;
  std::vector<float> data = random_values<float>(shape);
  NDArray x = array_of(shape, data);
  Shape out{2, 2, 4, 6};
  // DCR: the input seen as [N, b, b, C/b^2, H, W]; CRD: as [N, C/b^2, b, b, H, W].
  expect_array(run_op("DepthToSpace", {&x}, {{"blocksize", Attribute::of_int(b)}}, 1), out,
               generate<float>(out, [&](const Shape& o) {
                 int64_t i = o[2] % b, j = o[3] % b;
                 return data[ravel({o[0], (i * b + j) * c + o[1], o[2] / b, o[3] / b}, shape)];
               }));
  expect_array(run_op("DepthToSpace", {&x},
                      {{"blocksize", Attribute::of_int(b)}, {"mode", Attribute::of_string("CRD")}}),
               out, generate<float>(out, [&](const Shape& o) {
                 int64_t i = o[2] % b, j = o[3] % b;
                 return data[ravel({o[0], o[1] * b * b + i * b + j, o[2] / b, o[3] / b}, shape)];
               }));
}

TEST(SpaceToDepth, InvertsDepthToSpace) {
  Shape shape{1, 2, 6, 3};
  std::vector<float> data = random_values<float>(shape);
  NDArray x = array_of(shape, data);
  Attributes block{{"blocksize", Attribute::of_int(3)}};
  NDArray y = run_op("SpaceToDepth", {&x}, block);
  Shape out{1, 18, 2, 1};
  expect_array(y, out, generate<float>(out, [&](const Shape& o) {
                 int64_t block_index = o[1] / 2, channel = o[1] % 2;
                 return data[ravel(
                     {0, channel, o[2] * 3 + block_index / 3, o[3] * 3 + block_index % 3}, shape)];
               }));
  expect_array(run_op("DepthToSpace", {&y}, block), shape, data);
}

TEST(ReverseSequence, BatchAndTimeAxes) {
  Shape shape{4, 3, 2};
  std::vector<float> data = random_values<float>(shape);
  NDArray x = array_of(shape, data);
  NDArray lens = array_of<int64_t>({3}, {4, 1, 2});
  // time axis 0, batch axis 1 (the defaults).
  expect_array(run_op("ReverseSequence", {&x, &lens}), shape,
               generate<float>(shape, [&](const Shape& o) {
                 int64_t length = std::vector<int64_t>{4, 1, 2}[o[1]];
                 int64_t t = o[0] < length ? length - 1 - o[0] : o[0];
                 return data[ravel({t, o[1], o[2]}, shape)];
               }));
  NDArray lens4 = array_of<int64_t>({4}, {3, 0, 2, 1});
  Attributes swapped{{"batch_axis", Attribute::of_int(0)}, {"time_axis", Attribute::of_int(1)}};
  expect_array(run_op("ReverseSequence", {&x, &lens4}, swapped), shape,
               generate<float>(shape, [&](const Shape& o) {
                 int64_t length = std::vector<int64_t>{3, 0, 2, 1}[o[0]];
                 int64_t t = o[1] < length ? length - 1 - o[1] : o[1];
                 return data[ravel({o[0], t, o[2]}, shape)];
               }));
}

TEST(Compress, AlongAxisAndFlattened) {
  Shape shape{3, 5};
  std::vector<float> data = random_values<float>(shape);
  NDArray x = array_of(shape, data);
  // Selected columns 0, 2, 3, 4: runs [0] and [2, 4].
  NDArray columns = array_of<bool>({5}, {true, false, true, true, true});
  std::vector<int64_t> kept{0, 2, 3, 4};
  expect_array(run_op("Compress", {&x, &columns}, {{"axis", Attribute::of_int(-1)}}), {3, 4},
               generate<float>({3, 4}, [&](const Shape& o) {
                 return data[ravel({o[0], kept[o[1]]}, shape)];
               }));
  // Without an axis; the condition is shorter than the flattened input.
  NDArray flat = array_of<bool>({9}, {false, true, true, false, false, false, true, false, true});
  expect_array(run_op("Compress", {&x, &flat}), {4},
               std::vector<float>{data[1], data[2], data[6], data[8]});
}

TEST(RearrangeErrors, BadInput) {
  NDArray x = array_of<float>({1, 8, 2, 2}, random_values<float>({1, 8, 2, 2}));
  expect_compile_error(
      [&] {
        run_op("DepthToSpace", {&x},
               {{"blocksize", Attribute::of_int(2)}, {"mode", Attribute::of_string("RCD")}});
      },
      "attribute 'mode' is 'RCD', expected one of 'DCR', 'CRD'");
  expect_compile_error(
      [&] {
        run_op("DepthToSpace", {&x}, {{"blocksize", Attribute::of_int(3)}});
      },
      "channels 8 are not a multiple of blocksize^2 = 9");
  expect_compile_error(
      [&] {
        run_op("SpaceToDepth", {&x}, {{"blocksize", Attribute::of_int(3)}});
      },
      "spatial extents 2 x 2 are not multiples of blocksize 3");
  expect_compile_error([&] { run_op("SpaceToDepth", {&x}); }, "attribute 'blocksize' is required");
  NDArray m = array_of<float>({2, 2}, {1, 2, 3, 4});
  NDArray lens = array_of<int64_t>({3}, {1, 1, 1});
  expect_compile_error(
      [&] {
        run_op("ReverseSequence", {&m, &lens});
      },
      "sequence_lens has shape [3], expected [2]");
  NDArray beyond = array_of<bool>({3}, {false, false, true});
  expect_compile_error(
      [&] {
        run_op("Compress", {&m, &beyond}, {{"axis", Attribute::of_int(0)}});
      },
      "the condition selects position 2, beyond the extent 2");
}

TEST(Compress, AnUnknownConditionIsTakenAtRunTime) {
  NDArray m = array_of<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray condition = array_of<bool>({3}, {true, false, true});
  graph::Graph g;
  graph::Node* node = add_op(g, "Compress", {&m, &condition}, {{"axis", graph::Attribute::of_int(1)}}, 11);
  std::vector<graph::TensorType> types{node->inputs[0]->type, node->inputs[1]->type};
  executor::NodeKernel compiled = executor::compile_node(*node, types, {nullptr, nullptr});
  ASSERT_TRUE(compiled.data_dependent.has_value());
  EXPECT_EQ(compiled.output_types[0].shape(), (std::vector<int64_t>{2, 3}));  // the largest
  std::vector<NDArray> out = executor::run_compiled(*node, compiled, {&m, &condition});
  ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2}));
  const float expected[] = {1, 3, 4, 6};
  for (int k = 0; k < 4; ++k) EXPECT_EQ(out[0].data_as<float>()[k], expected[k]) << k;
}

}  // namespace
}  // namespace tessel::ops::testing

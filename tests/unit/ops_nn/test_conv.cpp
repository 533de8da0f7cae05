// Conv and ConvTranspose against naive loops: 1-, 2- and 3-d, groups (depthwise included),
// dilations, strides, asymmetric pads, auto_pad, bias, the tuned 2-d path, output_padding
// and output_shape, and channel mismatches.
#include "unit/ops_nn/nn_test_util.h"

namespace tessel::ops::testing {
namespace {

/// A convolution's geometry, given explicitly to the references.
struct ConvParams {
  Shape strides, dilations, pads_begin, pads_end;
  int64_t group = 1;
};

/// Naive N-d convolution: x [N, C, S...], w [M, C/group, K...] -> [N, M, O...].
std::vector<double> conv_reference(const std::vector<double>& x, const Shape& xs,
                                   const std::vector<double>& w, const Shape& ws,
                                   const std::vector<double>& bias, const ConvParams& p,
                                   Shape& out_shape) {
  size_t rank = xs.size() - 2;
  out_shape = {xs[0], ws[0]};
  for (size_t d = 0; d < rank; ++d) {
    int64_t span = (ws[d + 2] - 1) * p.dilations[d] + 1;
    out_shape.push_back((xs[d + 2] + p.pads_begin[d] + p.pads_end[d] - span) / p.strides[d] + 1);
  }
  int64_t cg = ws[1], mg = ws[0] / p.group;
  Shape kernel(ws.begin() + 1, ws.end());  // [C/group, K...]
  return generate<double>(out_shape, [&](const Shape& o) {
    double sum = bias.empty() ? 0 : bias[o[1]];
    for (int64_t t = 0; t < count(kernel); ++t) {
      Shape tap = unravel(t, kernel);
      Shape xi = {o[0], o[1] / mg * cg + tap[0]};
      bool inside = true;
      for (size_t d = 0; d < rank; ++d) {
        int64_t pos = o[d + 2] * p.strides[d] - p.pads_begin[d] + tap[d + 1] * p.dilations[d];
        inside = inside && pos >= 0 && pos < xs[d + 2];
        xi.push_back(pos);
      }
      if (!inside) continue;
      Shape wi = {o[1]};
      wi.insert(wi.end(), tap.begin(), tap.end());
      sum += x[ravel(xi, xs)] * w[ravel(wi, ws)];
    }
    return sum;
  });
}

Attributes conv_attributes(const ConvParams& p) {
  Shape pads = p.pads_begin;
  pads.insert(pads.end(), p.pads_end.begin(), p.pads_end.end());
  return {{"strides", ints(p.strides)},
          {"dilations", ints(p.dilations)},
          {"pads", ints(pads)},
          {"group", Attribute::of_int(p.group)}};
}

struct ConvCase {
  Shape x, w;
  ConvParams p;
  bool bias;
};

class ConvCases : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvCases, MatchesNaiveLoops) {
  const ConvCase& c = GetParam();
  std::vector<float> x = random_values<float>(c.x, 1), w = random_values<float>(c.w, 2);
  std::vector<float> b = random_values<float>({c.w[0]}, 3);
  NDArray xa = array_of(c.x, x), wa = array_of(c.w, w), ba = array_of({c.w[0]}, b);
  std::vector<const NDArray*> in = {&xa, &wa};
  if (c.bias) in.push_back(&ba);
  Shape out;
  std::vector<double> expected = conv_reference(
      {x.begin(), x.end()}, c.x, {w.begin(), w.end()}, c.w,
      c.bias ? std::vector<double>(b.begin(), b.end()) : std::vector<double>{}, c.p, out);
  expect_close(run_op("Conv", in, conv_attributes(c.p)), out, expected);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ConvCases,
    ::testing::Values(
        // 1-d: stride, dilation, asymmetric pads.
        ConvCase{{2, 3, 11}, {4, 3, 3}, {{2}, {2}, {1}, {2}}, true},
        // 1x1: no padding stage; output channels that leave partial blocks; batch 2.
        ConvCase{{1, 8, 4, 8}, {13, 8, 1, 1}, {{1, 1}, {1, 1}, {0, 0}, {0, 0}}, true},
        ConvCase{{2, 5, 4, 4}, {7, 5, 1, 1}, {{1, 1}, {1, 1}, {0, 0}, {0, 0}}, true},
        ConvCase{{1, 8, 5, 7}, {6, 8, 1, 1}, {{1, 1}, {1, 1}, {0, 0}, {0, 0}}, true},
        ConvCase{{1, 3, 4, 4}, {20, 3, 1, 1}, {{1, 1}, {1, 1}, {0, 0}, {0, 0}}, false},
        ConvCase{{2, 4, 3, 5}, {7, 4, 1, 1}, {{1, 1}, {1, 1}, {0, 0}, {0, 0}}, true},
        // 2-d on the tuned path: one group, equal strides and pads, ragged tiles.
        ConvCase{{1, 3, 9, 9}, {5, 3, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, true},
        ConvCase{{2, 4, 11, 10}, {6, 4, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, {1, 1}}, false},
        // 2-d tuned with asymmetric pads: the data is padded first.
        ConvCase{{1, 3, 8, 7}, {4, 3, 3, 2}, {{2, 2}, {1, 1}, {0, 1}, {2, 1}}, true},
        // 2-d generic: groups, dilation, unequal strides and asymmetric pads.
        ConvCase{{1, 4, 8, 9}, {6, 2, 3, 2}, {{1, 2}, {2, 1}, {0, 1}, {2, 0}, 2}, true},
        // generic with vectorized rows of outputs, ragged at the end
        ConvCase{{1, 4, 5, 21}, {4, 2, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 2}, true},
        ConvCase{{2, 3, 40}, {5, 3, 4}, {{1}, {3}, {2}, {1}}, false},
        // depthwise (the depthwise path: strides 1 to 3, rows wider than a tile, no pad,
        // asymmetric pads padded first; channel multiplier 2 takes the generic path)
        ConvCase{{2, 3, 7, 7}, {3, 1, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 3}, true},
        ConvCase{{1, 5, 13, 37}, {5, 1, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, {1, 1}, 5}, true},
        ConvCase{{1, 4, 9, 41}, {4, 1, 3, 5}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 4}, false},
        ConvCase{{1, 2, 10, 11}, {2, 1, 2, 3}, {{3, 3}, {1, 1}, {0, 0}, {0, 0}, 2}, true},
        ConvCase{{1, 3, 8, 9}, {3, 1, 3, 3}, {{2, 2}, {1, 1}, {0, 1}, {1, 1}, 3}, true},
        ConvCase{{1, 2, 6, 6}, {4, 1, 3, 3}, {{2, 1}, {1, 1}, {1, 0}, {1, 1}, 2}, false},
        // 3-d
        ConvCase{
            {1, 2, 5, 6, 4}, {3, 2, 3, 2, 2}, {{1, 2, 1}, {1, 1, 2}, {1, 0, 1}, {1, 1, 0}}, true}));

/// The pads auto_pad gives (the odd one at the end for SAME_UPPER, the beginning for
/// SAME_LOWER), computed the way the ONNX documentation states it.
ConvParams same_pads(const Shape& input, const Shape& kernel, const Shape& strides, bool upper) {
  ConvParams p{strides, Shape(input.size(), 1), {}, {}};
  for (size_t d = 0; d < input.size(); ++d) {
    int64_t out = (input[d] + strides[d] - 1) / strides[d];
    int64_t total = std::max<int64_t>(0, (out - 1) * strides[d] + kernel[d] - input[d]);
    int64_t small = total / 2, large = total - small;
    p.pads_begin.push_back(upper ? small : large);
    p.pads_end.push_back(upper ? large : small);
  }
  return p;
}

TEST(Conv, AutoPad) {
  Shape xs{1, 2, 7, 8}, ws{3, 2, 4, 3};
  std::vector<float> x = random_values<float>(xs, 4), w = random_values<float>(ws, 5);
  NDArray xa = array_of(xs, x), wa = array_of(ws, w);
  std::vector<double> xd(x.begin(), x.end()), wd(w.begin(), w.end());
  for (const char* mode : {"SAME_UPPER", "SAME_LOWER", "VALID"}) {
    Shape strides{2, 3};
    ConvParams p = std::string(mode) == "VALID"
                       ? ConvParams{strides, {1, 1}, {0, 0}, {0, 0}}
                       : same_pads({7, 8}, {4, 3}, strides, std::string(mode) == "SAME_UPPER");
    Shape out;
    std::vector<double> expected = conv_reference(xd, xs, wd, ws, {}, p, out);
    NDArray y = run_op("Conv", {&xa, &wa},
                       {{"auto_pad", Attribute::of_string(mode)}, {"strides", ints(strides)}});
    SCOPED_TRACE(mode);
    expect_close(y, out, expected);
  }
}

TEST(Conv, Float16AndFloat64) {
  Shape xs{1, 2, 6, 5}, ws{3, 2, 3, 3};
  ConvParams p{{1, 1}, {1, 1}, {1, 1}, {1, 1}};
  std::vector<_Float16> x = random_values<_Float16>(xs, 10), w = random_values<_Float16>(ws, 11);
  std::vector<_Float16> b = random_values<_Float16>({3}, 12);
  Shape out;
  std::vector<double> expected = conv_reference({x.begin(), x.end()}, xs, {w.begin(), w.end()}, ws,
                                                {b.begin(), b.end()}, p, out);
  NDArray xh = array_of(xs, x), wh = array_of(ws, w), bh = array_of({3}, b);
  expect_close<_Float16>(run_op("Conv", {&xh, &wh, &bh}, conv_attributes(p)), out, expected, 3e-3);
  std::vector<double> xd(x.begin(), x.end()), wd(w.begin(), w.end()), bd(b.begin(), b.end());
  NDArray xa = array_of(xs, xd), wa = array_of(ws, wd), ba = array_of({3}, bd);
  expect_close<double>(run_op("Conv", {&xa, &wa, &ba}, conv_attributes(p)), out, expected, 1e-12);
}

TEST(Conv, ChannelMismatchNamesTheShapes) {
  NDArray x = array_of<float>({1, 3, 5, 5}, std::vector<float>(75));
  NDArray w = array_of<float>({4, 2, 3, 3}, std::vector<float>(72));
  expect_compile_error([&] { run_op("Conv", {&x, &w}); }, {"[1, 3, 5, 5]", "[4, 2, 3, 3]"});
  NDArray b = array_of<float>({3}, std::vector<float>(3));
  NDArray w3 = array_of<float>({4, 3, 3, 3}, std::vector<float>(108));
  expect_compile_error([&] { run_op("Conv", {&x, &w3, &b}); }, {"bias", "[3]", "[4]"});
  expect_compile_error(
      [&] {
        run_op("Conv", {&x, &w3}, {{"pads", ints({1, 1})}});
      },
      {"'pads'", "2 values"});
}

// ---- ConvTranspose ----------------------------------------------------------------------

struct TransposeParams {
  Shape strides, dilations, pads_begin, pads_end, output_padding;
  int64_t group = 1;
};

/// Naive transposed convolution by scattering: x [N, C, S...], w [C, M/group, K...].
std::vector<double> conv_transpose_reference(const std::vector<double>& x, const Shape& xs,
                                             const std::vector<double>& w, const Shape& ws,
                                             const TransposeParams& p, Shape& out_shape) {
  size_t rank = xs.size() - 2;
  int64_t cg = xs[1] / p.group, mg = ws[1];
  out_shape = {xs[0], mg * p.group};
  for (size_t d = 0; d < rank; ++d)
    out_shape.push_back(p.strides[d] * (xs[d + 2] - 1) + p.output_padding[d] +
                        (ws[d + 2] - 1) * p.dilations[d] + 1 - p.pads_begin[d] - p.pads_end[d]);
  std::vector<double> out(static_cast<size_t>(count(out_shape)), 0.0);
  Shape kernel(ws.begin() + 1, ws.end());  // [M/group, K...]
  for (int64_t i = 0; i < count(xs); ++i) {
    Shape xi = unravel(i, xs);
    int64_t g = xi[1] / cg;
    for (int64_t t = 0; t < count(kernel); ++t) {
      Shape tap = unravel(t, kernel);
      Shape oi = {xi[0], g * mg + tap[0]};
      bool inside = true;
      for (size_t d = 0; d < rank; ++d) {
        int64_t pos = xi[d + 2] * p.strides[d] + tap[d + 1] * p.dilations[d] - p.pads_begin[d];
        inside = inside && pos >= 0 && pos < out_shape[d + 2];
        oi.push_back(pos);
      }
      if (!inside) continue;
      Shape wi = {xi[1]};
      wi.insert(wi.end(), tap.begin(), tap.end());
      out[static_cast<size_t>(ravel(oi, out_shape))] += x[i] * w[ravel(wi, ws)];
    }
  }
  return out;
}

struct TransposeCase {
  Shape x, w;
  TransposeParams p;
};

class ConvTransposeCases : public ::testing::TestWithParam<TransposeCase> {};

TEST_P(ConvTransposeCases, MatchesScatterReference) {
  const TransposeCase& c = GetParam();
  std::vector<float> x = random_values<float>(c.x, 6), w = random_values<float>(c.w, 7);
  NDArray xa = array_of(c.x, x), wa = array_of(c.w, w);
  Shape out;
  std::vector<double> expected =
      conv_transpose_reference({x.begin(), x.end()}, c.x, {w.begin(), w.end()}, c.w, c.p, out);
  Shape pads = c.p.pads_begin;
  pads.insert(pads.end(), c.p.pads_end.begin(), c.p.pads_end.end());
  Attributes attrs = {{"strides", ints(c.p.strides)},
                      {"dilations", ints(c.p.dilations)},
                      {"pads", ints(pads)},
                      {"group", Attribute::of_int(c.p.group)},
                      {"output_padding", ints(c.p.output_padding)}};
  expect_close(run_op("ConvTranspose", {&xa, &wa}, attrs), out, expected);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ConvTransposeCases,
    ::testing::Values(
        TransposeCase{{1, 2, 5}, {2, 3, 3}, {{2}, {1}, {0}, {0}, {1}}},
        TransposeCase{{2, 3, 4, 5}, {3, 2, 3, 3}, {{2, 3}, {1, 1}, {1, 0}, {0, 2}, {1, 0}}},
        TransposeCase{{1, 4, 3, 3}, {4, 1, 2, 3}, {{1, 2}, {2, 1}, {0, 1}, {1, 0}, {0, 1}, 2}},
        TransposeCase{{1, 2, 3, 2, 3},
                      {2, 2, 2, 3, 2},
                      {{2, 1, 2}, {1, 1, 1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}));

TEST(ConvTranspose, OutputShapeAndBias) {
  // Output [10, 8] from a 3x3 input with strides [3, 2]: 9 x 7 naturally, one more row and
  // column at the end (like output_padding [1, 1]).
  Shape xs{1, 1, 3, 3}, ws{1, 2, 3, 3};
  std::vector<float> x = random_values<float>(xs, 8), w = random_values<float>(ws, 9);
  std::vector<float> b = {0.5f, -1.5f};
  NDArray xa = array_of(xs, x), wa = array_of(ws, w), ba = array_of({2}, b);
  Shape out;
  std::vector<double> expected =
      conv_transpose_reference({x.begin(), x.end()}, xs, {w.begin(), w.end()}, ws,
                               {{3, 2}, {1, 1}, {0, 0}, {0, 0}, {1, 1}}, out);
  for (size_t k = 0; k < expected.size(); ++k)
    expected[k] += b[unravel(static_cast<int64_t>(k), out)[1]];
  expect_close(run_op("ConvTranspose", {&xa, &wa, &ba},
                      {{"strides", ints({3, 2})}, {"output_shape", ints({10, 8})}}),
               out, expected);
}

TEST(ConvTranspose, ChannelMismatch) {
  NDArray x = array_of<float>({1, 3, 4, 4}, std::vector<float>(48));
  NDArray w = array_of<float>({2, 2, 3, 3}, std::vector<float>(36));
  expect_compile_error(
      [&] {
        run_op("ConvTranspose", {&x, &w});
      },
      {"[1, 3, 4, 4]", "[2, 2, 3, 3]"});
}

}  // namespace
}  // namespace tessel::ops::testing

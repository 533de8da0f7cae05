// MaxPool, AveragePool, LpPool, the global poolings and MaxUnpool against naive loops:
// pads, strides, dilations, ceil_mode, count_include_pad, indices in both storage orders,
// auto_pad, and unpooling the indices of a MaxPool.
#include <limits>

#include "unit/ops_nn/nn_test_util.h"

namespace tessel::ops::testing {
namespace {

enum class Kind { Max, Average, Lp };

struct PoolParams {
  Shape kernel, strides, pads_begin, pads_end, dilations;
  bool ceil_mode = false;
  bool count_include_pad = false;
  int64_t p = 2;
};

Shape pool_output(const Shape& xs, const PoolParams& p) {
  Shape out = {xs[0], xs[1]};
  for (size_t d = 0; d + 2 < xs.size(); ++d) {
    int64_t span = (p.kernel[d] - 1) * p.dilations[d] + 1;
    int64_t room = xs[d + 2] + p.pads_begin[d] + p.pads_end[d] - span;
    int64_t o = (p.ceil_mode ? (room + p.strides[d] - 1) / p.strides[d] : room / p.strides[d]) + 1;
    if (p.ceil_mode && (o - 1) * p.strides[d] >= xs[d + 2] + p.pads_begin[d]) --o;
    out.push_back(o);
  }
  return out;
}

/// Naive pooling; `indices` receives the row-major flat index of each max (first one).
std::vector<double> pool_reference(const std::vector<double>& x, const Shape& xs, Kind kind,
                                   const PoolParams& p, std::vector<int64_t>* indices = nullptr) {
  Shape out = pool_output(xs, p);
  return generate<double>(out, [&](const Shape& o) {
    double best = -std::numeric_limits<double>::infinity(), sum = 0;
    int64_t best_index = -1, taps = 0;
    for (int64_t t = 0; t < count(p.kernel); ++t) {
      Shape tap = unravel(t, p.kernel);
      Shape xi = {o[0], o[1]};
      bool inside = true, in_padded = true;
      for (size_t d = 0; d < p.kernel.size(); ++d) {
        int64_t pos = o[d + 2] * p.strides[d] - p.pads_begin[d] + tap[d] * p.dilations[d];
        inside = inside && pos >= 0 && pos < xs[d + 2];
        in_padded = in_padded && pos < xs[d + 2] + p.pads_end[d];
        xi.push_back(pos);
      }
      if (p.count_include_pad ? in_padded : inside) ++taps;
      if (!inside) continue;
      double v = x[ravel(xi, xs)];
      if (v > best) {
        best = v;
        best_index = ravel(xi, xs);
      }
      sum += kind == Kind::Lp ? std::pow(std::abs(v), double(p.p)) : v;
    }
    if (indices) indices->push_back(best_index);
    if (kind == Kind::Max) return best;
    if (kind == Kind::Average) return sum / double(taps);
    return std::pow(sum, 1.0 / double(p.p));
  });
}

Attributes pool_attributes(const PoolParams& p) {
  Shape pads = p.pads_begin;
  pads.insert(pads.end(), p.pads_end.begin(), p.pads_end.end());
  return {{"kernel_shape", ints(p.kernel)}, {"strides", ints(p.strides)}, {"pads", ints(pads)}};
}

struct PoolCase {
  Shape x;
  PoolParams p;
};

class PoolCases : public ::testing::TestWithParam<PoolCase> {};

TEST_P(PoolCases, MaxAverageAndLpMatchNaiveLoops) {
  const PoolCase& c = GetParam();
  std::vector<float> x = random_values<float>(c.x, 1);
  std::vector<double> xd(x.begin(), x.end());
  NDArray xa = array_of(c.x, x);
  Shape out = pool_output(c.x, c.p);

  Attributes max_attrs = pool_attributes(c.p);
  max_attrs["dilations"] = ints(c.p.dilations);
  max_attrs["ceil_mode"] = Attribute::of_int(c.p.ceil_mode);
  std::vector<int64_t> indices;
  std::vector<double> expected = pool_reference(xd, c.x, Kind::Max, c.p, &indices);
  std::vector<NDArray> y = run_op_outputs("MaxPool", {&xa}, max_attrs, 17, 2);
  expect_close(y[0], out, expected);
  expect_array(y[1], out, indices);

  bool dilated = false;
  for (int64_t d : c.p.dilations) dilated = dilated || d != 1;
  if (dilated) return;  // AveragePool and LpPool have no dilations before opset 19
  for (bool include_pad : {false, true}) {
    PoolParams p = c.p;
    p.count_include_pad = include_pad;
    Attributes attrs = pool_attributes(p);
    attrs["ceil_mode"] = Attribute::of_int(p.ceil_mode);
    attrs["count_include_pad"] = Attribute::of_int(include_pad);
    SCOPED_TRACE(include_pad ? "count_include_pad" : "count inside only");
    expect_close(run_op("AveragePool", {&xa}, attrs), out,
                 pool_reference(xd, c.x, Kind::Average, p));
  }
  if (c.p.ceil_mode) return;  // LpPool has no ceil_mode
  for (int64_t norm : {2, 3}) {
    PoolParams p = c.p;
    p.p = norm;
    Attributes attrs = pool_attributes(p);
    attrs["p"] = Attribute::of_int(norm);
    expect_close(run_op("LpPool", {&xa}, attrs), out, pool_reference(xd, c.x, Kind::Lp, p));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PoolCases,
    ::testing::Values(PoolCase{{2, 3, 9}, {{3}, {2}, {1}, {1}, {1}}},
                      PoolCase{{1, 2, 6, 7}, {{3, 2}, {2, 2}, {0, 0}, {0, 0}, {1, 1}}},
                      PoolCase{{1, 2, 7, 7}, {{3, 3}, {2, 2}, {1, 0}, {2, 1}, {1, 1}}},
                      PoolCase{{1, 1, 8, 8}, {{3, 3}, {3, 3}, {0, 0}, {0, 0}, {1, 1}, true}},
                      PoolCase{{1, 2, 5, 6}, {{2, 2}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, true}},
                      PoolCase{{1, 1, 9, 8}, {{2, 3}, {1, 2}, {1, 1}, {0, 1}, {2, 2}}},
                      PoolCase{{1, 2, 4, 5, 6},
                               {{2, 3, 2}, {2, 1, 2}, {0, 1, 1}, {1, 1, 0}, {1, 1, 1}}},
                      // 2-d pools of NCHW[x]c blocks: a window of one channel, padded taps
                      // selected (the reduction vectorises over the block).
                      PoolCase{{1, 2, 7, 7, 16},
                               {{3, 3, 1}, {2, 2, 1}, {1, 1, 0}, {1, 1, 0}, {1, 1, 1}}},
                      PoolCase{{1, 1, 5, 6, 8},
                               {{2, 2, 1}, {2, 2, 1}, {1, 1, 0}, {0, 1, 0}, {1, 1, 1}, true}}));

TEST(MaxPool, ColumnMajorIndicesAndAutoPad) {
  Shape xs{1, 2, 5, 4};
  std::vector<float> x = random_values<float>(xs, 2);
  NDArray xa = array_of(xs, x);
  PoolParams p{{2, 2}, {2, 2}, {0, 0}, {0, 0}, {1, 1}};
  std::vector<int64_t> row_major;
  std::vector<double> expected = pool_reference({x.begin(), x.end()}, xs, Kind::Max, p, &row_major);
  std::vector<NDArray> y = run_op_outputs("MaxPool", {&xa},
                                          {{"kernel_shape", ints({2, 2})},
                                           {"strides", ints({2, 2})},
                                           {"storage_order", Attribute::of_int(1)}},
                                          17, 2);
  std::vector<int64_t> column_major;
  for (int64_t k : row_major) {
    Shape i = unravel(k, xs);
    column_major.push_back((i[0] * 2 + i[1]) * 20 + i[3] * 5 + i[2]);
  }
  expect_close(y[0], {1, 2, 2, 2}, expected);
  expect_array(y[1], {1, 2, 2, 2}, column_major);

  // SAME_UPPER on 5 x 4 with a 3 x 3 kernel, strides 2: outputs 3 x 2; total pads 2 and 1,
  // the odd one at the end.
  PoolParams same{{3, 3}, {2, 2}, {1, 0}, {1, 1}, {1, 1}};
  std::vector<double> same_expected = pool_reference({x.begin(), x.end()}, xs, Kind::Average, same);
  expect_close(run_op("AveragePool", {&xa},
                      {{"kernel_shape", ints({3, 3})},
                       {"strides", ints({2, 2})},
                       {"auto_pad", Attribute::of_string("SAME_UPPER")}}),
               {1, 2, 3, 2}, same_expected);
}

TEST(GlobalPool, AverageMaxAndLp) {
  Shape xs{2, 3, 4, 5};
  std::vector<float> x = random_values<float>(xs, 3);
  NDArray xa = array_of(xs, x);
  std::vector<double> avg, max, lp;
  for (int64_t nc = 0; nc < 6; ++nc) {
    double s = 0, m = -1e30, q = 0;
    for (int64_t k = 0; k < 20; ++k) {
      double v = x[nc * 20 + k];
      s += v;
      m = std::max(m, v);
      q += v * v;
    }
    avg.push_back(s / 20);
    max.push_back(m);
    lp.push_back(std::sqrt(q));
  }
  expect_close(run_op("GlobalAveragePool", {&xa}), {2, 3, 1, 1}, avg);
  expect_close(run_op("GlobalMaxPool", {&xa}), {2, 3, 1, 1}, max);
  expect_close(run_op("GlobalLpPool", {&xa}), {2, 3, 1, 1}, lp);
}

TEST(MaxPool, Uint8) {
  Shape xs{1, 1, 4, 4};
  std::vector<uint8_t> x = random_values<uint8_t>(xs, 4, 0, 256);
  NDArray xa = array_of(xs, x);
  PoolParams p{{2, 2}, {1, 1}, {0, 0}, {0, 0}, {1, 1}};
  std::vector<double> expected = pool_reference({x.begin(), x.end()}, xs, Kind::Max, p);
  expect_array(run_op("MaxPool", {&xa}, pool_attributes(p)), {1, 1, 3, 3},
               std::vector<uint8_t>(expected.begin(), expected.end()));
}

TEST(MaxUnpool, InvertsMaxPoolIndices) {
  Shape xs{1, 2, 6, 5};
  std::vector<float> x = random_values<float>(xs, 5);
  NDArray xa = array_of(xs, x);
  Attributes attrs = {
      {"kernel_shape", ints({2, 2})}, {"strides", ints({2, 2})}, {"pads", ints({0, 0, 0, 1})}};
  std::vector<NDArray> pooled = run_op_outputs("MaxPool", {&xa}, attrs, 17, 2);
  ASSERT_EQ(pooled[0].shape(), (Shape{1, 2, 3, 3}));
  // Unpooled extents: (3 - 1) * 2 + 2 - pads = 6 x 5; each max back at its index.
  std::vector<double> expected(static_cast<size_t>(count(xs)), 0.0);
  std::vector<float> values = values_of<float>(pooled[0]);
  std::vector<int64_t> where = values_of<int64_t>(pooled[1]);
  for (size_t k = 0; k < where.size(); ++k) expected[static_cast<size_t>(where[k])] = values[k];
  expect_close(run_op("MaxUnpool", {&pooled[0], &pooled[1]}, attrs), xs, expected);
  // A larger output_shape keeps the indices of the unpooled extents and pads at the end.
  NDArray shape = array_of<int64_t>({4}, {1, 2, 7, 6});
  std::vector<double> padded = generate<double>({1, 2, 7, 6}, [&](const Shape& o) {
    return o[2] < 6 && o[3] < 5 ? expected[ravel(o, xs)] : 0.0;
  });
  expect_close(run_op("MaxUnpool", {&pooled[0], &pooled[1], &shape}, attrs), {1, 2, 7, 6}, padded);
}

TEST(Pool, BadAttributes) {
  NDArray x = array_of<float>({1, 1, 4, 4}, std::vector<float>(16));
  expect_compile_error(
      [&] {
        run_op("MaxPool", {&x}, {{"kernel_shape", ints({5, 5})}});
      },
      {"empty", "[4, 4]"});
  expect_compile_error([&] { run_op("AveragePool", {&x}, {}); }, {"'kernel_shape'"});
  expect_compile_error(
      [&] {
        run_op("MaxPool", {&x}, {{"kernel_shape", ints({2, 2})}, {"strides", ints({0, 1})}});
      },
      {"'strides'"});
}

}  // namespace
}  // namespace tessel::ops::testing

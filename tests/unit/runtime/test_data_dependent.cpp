// NonZero, Unique, NonMaxSuppression, Compress and TopK as the runtime runs them, against
// references written here another way (sets and maps for Unique, selection by repeated
// maximum for NonMaxSuppression and TopK, index arithmetic for Compress), on random data
// with many repeats, and the inputs they refuse.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "runtime/data_dependent.h"
#include "runtime/error.h"

namespace tessel::runtime {
namespace {

using Shape = std::vector<int64_t>;

/// Runs `kind` on float32 / int64 inputs given as vectors; returns the outputs cut to their
/// actual shapes, and those shapes.
struct StepRun {
  std::vector<std::vector<int64_t>> ints;  // int64 outputs
  std::vector<float> floats;               // a float32 output 0 (Unique's Y)
  std::vector<Shape> shapes;
};

StepRun run(StepKind kind, const std::vector<int64_t>& params,
            const std::vector<ConstView>& inputs) {
  std::vector<DType> dtypes;
  std::vector<Shape> shapes;
  for (const ConstView& v : inputs) {
    dtypes.push_back(v.dtype);
    shapes.push_back(v.shape);
  }
  DataDependentOutputs out = data_dependent_outputs(kind, params, dtypes, shapes);
  // Each output gets memory for exactly the shape the step asks for (within the largest
  // its input shapes allow), followed by guard bytes that must stay untouched.
  constexpr size_t kGuard = 8;
  std::vector<std::vector<uint8_t>> buffers(out.dtypes.size());
  std::vector<Shape> asked(out.dtypes.size());
  auto allocate = [&](size_t k, const Shape& shape) -> void* {
    EXPECT_TRUE(buffers.at(k).empty()) << "output " << k << " allocated twice";
    EXPECT_EQ(shape.size(), out.capacities[k].size());
    for (size_t d = 0; d < shape.size() && d < out.capacities[k].size(); ++d)
      EXPECT_LE(shape[d], out.capacities[k][d]) << "output " << k << ", dimension " << d;
    int64_t n = out.dtypes[k].bytes();
    for (int64_t d : shape) n *= d;
    asked[k] = shape;
    buffers[k].assign(static_cast<size_t>(n) + kGuard, 0xEE);
    return buffers[k].data();
  };
  StepRun r;
  StringStore store;
  r.shapes = run_data_dependent(kind, params, {}, inputs, allocate, store);
  EXPECT_EQ(r.shapes, asked);
  for (const std::vector<uint8_t>& b : buffers)
    for (size_t g = b.size() - std::min(b.size(), kGuard); g < b.size(); ++g)
      EXPECT_EQ(b[g], 0xEE) << "a step wrote past its output";
  for (size_t k = 0; k < buffers.size(); ++k) {
    int64_t n = 1;
    for (int64_t d : r.shapes[k]) n *= d;
    if (out.dtypes[k] == DType::Float(32)) {
      const auto* f = reinterpret_cast<const float*>(buffers[k].data());
      r.floats.assign(f, f + n);
      r.ints.emplace_back();
    } else {
      const auto* i = reinterpret_cast<const int64_t*>(buffers[k].data());
      r.ints.emplace_back(i, i + n);
    }
  }
  return r;
}

TEST(DataDependent, NonZeroListsTheCoordinatesRowMajor) {
  std::mt19937 rng(3);
  Shape shape = {3, 4, 5};
  std::vector<float> x(60);
  for (float& v : x) v = rng() % 3 == 0 ? static_cast<float>(rng() % 5) - 2.0f : 0.0f;
  x[7] = std::nanf("");
  StepRun r = run(StepKind::NonZero, {}, {{x.data(), DType::Float(32), shape}});
  std::vector<int64_t> flat;
  for (int64_t k = 0; k < 60; ++k)
    if (x[static_cast<size_t>(k)] != 0) flat.push_back(k);
  int64_t n = static_cast<int64_t>(flat.size());
  ASSERT_EQ(r.shapes[0], (Shape{3, n}));
  for (int64_t i = 0; i < n; ++i) {
    int64_t k = flat[static_cast<size_t>(i)];
    EXPECT_EQ(r.ints[0][static_cast<size_t>(i)], k / 20);
    EXPECT_EQ(r.ints[0][static_cast<size_t>(n + i)], k / 5 % 4);
    EXPECT_EQ(r.ints[0][static_cast<size_t>(2 * n + i)], k % 5);
  }
}

TEST(DataDependent, UniqueOfTheFlattenedInput) {
  std::mt19937 rng(5);
  std::vector<int64_t> x(40);
  for (int64_t& v : x)
    v = static_cast<int64_t>(rng() % 9) - 4 + (rng() % 7 == 0 ? (int64_t{1} << 60) : 0);
  for (bool sorted : {true, false}) {
    StepRun r = run(StepKind::Unique, {-1, sorted}, {{x.data(), DType::Int(64), {5, 8}}});
    // The reference: distinct values in the order asked, with first positions and counts.
    std::vector<int64_t> order;
    std::map<int64_t, int64_t> first, count;
    for (size_t k = 0; k < x.size(); ++k) {
      if (!first.count(x[k])) {
        first[x[k]] = static_cast<int64_t>(k);
        order.push_back(x[k]);
      }
      ++count[x[k]];
    }
    if (sorted) std::sort(order.begin(), order.end());
    SCOPED_TRACE(sorted ? "sorted" : "in order of appearance");
    ASSERT_EQ(r.shapes[0], (Shape{static_cast<int64_t>(order.size())}));
    EXPECT_EQ(r.ints[0], order);
    for (size_t u = 0; u < order.size(); ++u) {
      EXPECT_EQ(r.ints[1][u], first[order[u]]);
      EXPECT_EQ(r.ints[3][u], count[order[u]]);
    }
    for (size_t k = 0; k < x.size(); ++k)
      EXPECT_EQ(order[static_cast<size_t>(r.ints[2][k])], x[k]) << "inverse index of element " << k;
  }
}

TEST(DataDependent, UniqueSlicesAlongAnAxis) {
  // [2, 6, 2] with slices along axis 1 repeating: slice j is (j % 3) scaled.
  std::vector<float> x(24);
  for (int64_t o = 0; o < 2; ++o)
    for (int64_t j = 0; j < 6; ++j)
      for (int64_t i = 0; i < 2; ++i)
        x[static_cast<size_t>((o * 6 + j) * 2 + i)] = static_cast<float>((2 - j % 3) * (o + 1) + i);
  StepRun r = run(StepKind::Unique, {1, 1}, {{x.data(), DType::Float(32), {2, 6, 2}}});
  ASSERT_EQ(r.shapes[0], (Shape{2, 3, 2}));
  // Ascending slices: j % 3 = 2, 1, 0, first seen at j = 2, 1, 0; each twice.
  EXPECT_EQ(r.ints[1], (std::vector<int64_t>{2, 1, 0}));
  EXPECT_EQ(r.ints[3], (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(r.ints[2], (std::vector<int64_t>{2, 1, 0, 2, 1, 0}));
  for (int64_t o = 0; o < 2; ++o)
    for (int64_t u = 0; u < 3; ++u)
      for (int64_t i = 0; i < 2; ++i)
        EXPECT_EQ(r.floats[static_cast<size_t>((o * 3 + u) * 2 + i)],
                  static_cast<float>(u * (o + 1) + i));
}

/// IoU of corner boxes [y1, x1, y2, x2].
double iou(const float* a, const float* b) {
  double h = std::min(a[2], b[2]) - std::max(a[0], b[0]),
         w = std::min(a[3], b[3]) - std::max(a[1], b[1]);
  if (h <= 0 || w <= 0) return 0;
  double inter = h * w;
  return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter);
}

TEST(DataDependent, NonMaxSuppressionKeepsTheBestBoxesThatDoNotOverlap) {
  std::mt19937 rng(9);
  const int64_t batches = 2, classes = 3, n = 30;
  std::vector<float> boxes(batches * n * 4), scores(batches * classes * n);
  for (int64_t k = 0; k < batches * n; ++k) {
    float y = static_cast<float>(rng() % 20), x = static_cast<float>(rng() % 20);
    float h = 1 + static_cast<float>(rng() % 6), w = 1 + static_cast<float>(rng() % 6);
    float* b = &boxes[static_cast<size_t>(k * 4)];
    b[0] = y;
    b[1] = x;
    b[2] = y + h;
    b[3] = x + w;
  }
  for (float& s : scores) s = static_cast<float>(rng() % 10) / 10.0f;  // ties
  int64_t max_boxes = 7;
  float threshold = 0.3f, score_floor = 0.15f;
  StepRun r = run(StepKind::NonMaxSuppression, {0, 1, 1, 1},
                  {{boxes.data(), DType::Float(32), {batches, n, 4}},
                   {scores.data(), DType::Float(32), {batches, classes, n}},
                   {&max_boxes, DType::Int(64), {1}},
                   {&threshold, DType::Float(32), {1}},
                   {&score_floor, DType::Float(32), {1}}});
  // The reference: repeatedly take the best remaining box (the lowest index among equals),
  // drop those it overlaps.
  std::vector<int64_t> want;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t c = 0; c < classes; ++c) {
      std::set<int64_t> left;
      for (int64_t i = 0; i < n; ++i)
        if (scores[static_cast<size_t>((b * classes + c) * n + i)] > score_floor) left.insert(i);
      int64_t taken = 0;
      while (!left.empty() && taken < max_boxes) {
        int64_t best = *left.begin();
        for (int64_t i : left)
          if (scores[static_cast<size_t>((b * classes + c) * n + i)] >
              scores[static_cast<size_t>((b * classes + c) * n + best)])
            best = i;
        want.insert(want.end(), {b, c, best});
        ++taken;
        std::set<int64_t> rest;
        for (int64_t i : left)
          if (i != best && iou(&boxes[static_cast<size_t>((b * n + best) * 4)],
                               &boxes[static_cast<size_t>((b * n + i) * 4)]) <= threshold)
            rest.insert(i);
        left = rest;
      }
    }
  ASSERT_EQ(r.shapes[0], (Shape{static_cast<int64_t>(want.size() / 3), 3}));
  EXPECT_EQ(r.ints[0], want);
}

TEST(DataDependent, CompressKeepsTheSelectedSlices) {
  std::mt19937 rng(5);
  const Shape shape{3, 4, 5};
  std::vector<float> x(60);
  for (float& v : x) v = static_cast<float>(rng() % 100);
  for (int64_t axis : {-1, 0, 1, 2}) {
    int64_t extent = axis < 0 ? 60 : shape[static_cast<size_t>(axis)];
    for (int64_t length : {extent, extent - 1}) {  // a shorter condition selects less
      std::vector<uint8_t> condition(static_cast<size_t>(length));
      for (uint8_t& c : condition) c = rng() % 2;
      StepRun r =
          run(StepKind::Compress, {axis},
              {{x.data(), DType::Float(32), shape}, {condition.data(), DType::Bool(), {length}}});
      std::vector<float> want;
      Shape want_shape = axis < 0 ? Shape{0} : shape;
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 4; ++j)
          for (int64_t k = 0; k < 5; ++k) {
            int64_t flat = (i * 4 + j) * 5 + k;
            int64_t position =
                axis < 0 ? flat : std::vector<int64_t>{i, j, k}[static_cast<size_t>(axis)];
            if (position < length && condition[static_cast<size_t>(position)])
              want.push_back(x[static_cast<size_t>(flat)]);
          }
      int64_t selected = 0;
      for (uint8_t c : condition) selected += c;
      want_shape[axis < 0 ? 0 : static_cast<size_t>(axis)] = selected;
      EXPECT_EQ(r.shapes[0], want_shape) << "axis " << axis;
      EXPECT_EQ(r.floats, want) << "axis " << axis << ", condition length " << length;
    }
  }
  std::vector<uint8_t> beyond{0, 0, 1};
  EXPECT_THROW(run(StepKind::Compress, {0},
                   {{x.data(), DType::Float(32), {2, 30}}, {beyond.data(), DType::Bool(), {3}}}),
               Error);
}

TEST(DataDependent, TopKSelectsTheBestOfEachLine) {
  std::mt19937 rng(9);
  const Shape shape{4, 7, 3};
  std::vector<float> x(84);
  for (float& v : x) v = static_cast<float>(rng() % 5);  // many ties
  x[10] = std::nanf("");
  for (int64_t axis : {0, 1, 2})
    for (int64_t largest : {0, 1})
      for (int64_t k = 0; k <= shape[static_cast<size_t>(axis)]; ++k) {
        StepRun r = run(StepKind::TopK, {axis, largest},
                        {{x.data(), DType::Float(32), shape}, {&k, DType::Int(64), {1}}});
        Shape want_shape = shape;
        want_shape[static_cast<size_t>(axis)] = k;
        ASSERT_EQ(r.shapes[0], want_shape);
        ASSERT_EQ(r.shapes[1], want_shape);
        // Selection by repeated best: the first position not taken whose value no other
        // untaken one beats (NaN beats every number).
        int64_t length = shape[static_cast<size_t>(axis)];
        int64_t stride = axis == 0 ? 21 : axis == 1 ? 3 : 1;
        std::vector<float> values;
        std::vector<int64_t> indices;
        std::vector<std::pair<std::vector<float>, std::vector<int64_t>>> lines;
        for (int64_t flat = 0; flat < 84; ++flat) {
          if ((flat / stride) % length != 0) continue;  // one line per start
          std::vector<bool> taken(static_cast<size_t>(length));
          std::pair<std::vector<float>, std::vector<int64_t>> line;
          for (int64_t r2 = 0; r2 < k; ++r2) {
            int64_t best = -1;
            for (int64_t p = 0; p < length; ++p) {
              if (taken[static_cast<size_t>(p)]) continue;
              float v = x[static_cast<size_t>(flat + p * stride)];
              if (best < 0) {
                best = p;
                continue;
              }
              float b = x[static_cast<size_t>(flat + best * stride)];
              bool beats = std::isnan(v)    ? !std::isnan(b) && largest
                           : !std::isnan(b) ? (largest ? v > b : v < b)
                                            : !largest;
              if (beats) best = p;
            }
            taken[static_cast<size_t>(best)] = true;
            line.first.push_back(x[static_cast<size_t>(flat + best * stride)]);
            line.second.push_back(best);
          }
          lines.push_back(line);
        }
        // The runtime's outputs, read back line by line in the same order.
        size_t line_index = 0;
        for (int64_t flat = 0; flat < 84; ++flat) {
          if ((flat / stride) % length != 0) continue;
          int64_t outer = flat / (stride * length), inner = flat % stride;
          for (int64_t r2 = 0; r2 < k; ++r2) {
            size_t at = static_cast<size_t>((outer * k + r2) * stride + inner);
            float got = r.floats[at], want = lines[line_index].first[static_cast<size_t>(r2)];
            EXPECT_TRUE(got == want || (std::isnan(got) && std::isnan(want)))
                << "axis " << axis << " largest " << largest << " k " << k;
            EXPECT_EQ(r.ints[1][at], lines[line_index].second[static_cast<size_t>(r2)])
                << "axis " << axis << " largest " << largest << " k " << k;
          }
          ++line_index;
        }
      }
  int64_t too_many = 8;
  try {
    run(StepKind::TopK, {1, 1},
        {{x.data(), DType::Float(32), shape}, {&too_many, DType::Int(64), {1}}});
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "TopK: k is 8, expected 0 <= k <= 7 (the extent of axis 1)");
  }
}

TEST(DataDependent, BadInputsAreRefused) {
  EXPECT_THROW(data_dependent_outputs(StepKind::Unique, {3, 1}, {DType::Float(32)}, {{2, 2}}),
               Error);
  EXPECT_THROW(data_dependent_outputs(StepKind::NonMaxSuppression, {0, 0, 0, 0},
                                      {DType::Float(32), DType::Float(32)}, {{1, 5, 4}, {1, 2, 6}}),
               Error);
  std::vector<float> boxes(4, 0.0f), scores(1, 1.0f);
  int64_t negative = -1;
  try {
    run(StepKind::NonMaxSuppression, {0, 1, 0, 0},
        {{boxes.data(), DType::Float(32), {1, 1, 4}},
         {scores.data(), DType::Float(32), {1, 1, 1}},
         {&negative, DType::Int(64), {}}});
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "NonMaxSuppression: max_output_boxes_per_class is -1");
  }
}

}  // namespace
}  // namespace tessel::runtime

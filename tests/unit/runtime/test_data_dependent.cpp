// NonZero, Unique and NonMaxSuppression as the runtime runs them, against references written
// here another way (sets and maps for Unique, selection by repeated maximum for
// NonMaxSuppression), on random data with many repeats, and the inputs they refuse.
#include <gtest/gtest.h>

#include <algorithm>
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

StepRun run(StepKind kind, const std::vector<int64_t>& params, const std::vector<ConstView>& inputs) {
  std::vector<DType> dtypes;
  std::vector<Shape> shapes;
  for (const ConstView& v : inputs) {
    dtypes.push_back(v.dtype);
    shapes.push_back(v.shape);
  }
  DataDependentOutputs out = data_dependent_outputs(kind, params, dtypes, shapes);
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<void*> pointers;
  for (size_t k = 0; k < out.dtypes.size(); ++k) {
    int64_t n = out.dtypes[k].bytes();
    for (int64_t d : out.capacities[k]) n *= d;
    buffers.emplace_back(static_cast<size_t>(n) + 8, 0xEE);
    pointers.push_back(buffers.back().data());
  }
  StepRun r;
  r.shapes = run_data_dependent(kind, params, inputs, pointers);
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
  for (int64_t& v : x) v = static_cast<int64_t>(rng() % 9) - 4 + (rng() % 7 == 0 ? (int64_t{1} << 60) : 0);
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
  double h = std::min(a[2], b[2]) - std::max(a[0], b[0]), w = std::min(a[3], b[3]) - std::max(a[1], b[1]);
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
    b[0] = y; b[1] = x; b[2] = y + h; b[3] = x + w;
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

TEST(DataDependent, BadInputsAreRefused) {
  EXPECT_THROW(data_dependent_outputs(StepKind::Unique, {3, 1}, {DType::Float(32)}, {{2, 2}}), Error);
  EXPECT_THROW(data_dependent_outputs(StepKind::NonMaxSuppression, {0, 0, 0, 0},
                                      {DType::Float(32), DType::Float(32)}, {{1, 5, 4}, {1, 2, 6}}),
               Error);
  std::vector<float> boxes(4, 0.0f), scores(1, 1.0f);
  int64_t negative = -1;
  try {
    run(StepKind::NonMaxSuppression, {0, 1, 0, 0},
        {{boxes.data(), DType::Float(32), {1, 1, 4}}, {scores.data(), DType::Float(32), {1, 1, 1}},
         {&negative, DType::Int(64), {}}});
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "NonMaxSuppression: max_output_boxes_per_class is -1");
  }
}

}  // namespace
}  // namespace tessel::runtime

// SearchSpace: mixed-radix indexing, points as text and JSON, and the errors of bad knobs
// and bad points.
#include <gtest/gtest.h>

#include <limits>

#include "autotune/search_space.h"
#include "search_test_util.h"
#include "support/error.h"

namespace tessel::autotune {
namespace {

using testing::expect_error;

SearchSpace tiles() {
  SearchSpace space;
  space.add("tile_m", {4, 8, 16});
  space.add("unroll", {0, 1});
  space.add("order", {0, 1, 2, 3});
  return space;
}

TEST(SearchSpace, IndexesPointsInMixedRadix) {
  SearchSpace space = tiles();
  EXPECT_EQ(space.size(), 24u);
  EXPECT_EQ(space.point_at(0), (Point{0, 0, 0}));
  EXPECT_EQ(space.point_at(1), (Point{0, 0, 1}));  // the last knob varies fastest
  EXPECT_EQ(space.point_at(4), (Point{0, 1, 0}));
  EXPECT_EQ(space.point_at(23), (Point{2, 1, 3}));
  for (uint64_t i = 0; i < space.size(); ++i) EXPECT_EQ(space.index_of(space.point_at(i)), i);
}

TEST(SearchSpace, ContainsOnlyInRangePointsOfItsRank) {
  SearchSpace space = tiles();
  EXPECT_TRUE(space.contains({2, 1, 3}));
  EXPECT_FALSE(space.contains({3, 0, 0}));
  EXPECT_FALSE(space.contains({0, -1, 0}));
  EXPECT_FALSE(space.contains({0, 0}));
  EXPECT_THROW(space.index_of({0, 2, 0}), InternalError);
}

TEST(SearchSpace, SizeSaturates) {
  SearchSpace space;
  std::vector<int64_t> values(1 << 16);
  for (int k = 0; k < 5; ++k) space.add("k" + std::to_string(k), values);
  EXPECT_EQ(space.size(), std::numeric_limits<uint64_t>::max());
}

TEST(SearchSpace, RandomPointsCoverTheSpace) {
  SearchSpace space = tiles();
  std::mt19937_64 rng(2);
  std::vector<int> hits(space.size());
  for (int i = 0; i < 2400; ++i) {
    Point point = space.random_point(rng);
    ASSERT_TRUE(space.contains(point));
    ++hits[space.index_of(point)];
  }
  for (int count : hits) EXPECT_GT(count, 50);
}

TEST(SearchSpace, ValuesDescriptionAndJson) {
  SearchSpace space = tiles();
  Point point = {1, 1, 2};
  EXPECT_EQ(space.value(point, "tile_m"), 8);
  EXPECT_EQ(space.describe(point), "tile_m=8 unroll=1 order=2");
  json::Object object = space.to_json(point);
  EXPECT_EQ(json::write(object), R"({"tile_m":8,"unroll":1,"order":2})");
  EXPECT_EQ(space.from_json(object), point);
  EXPECT_EQ(space.from_json(json::parse(R"({"order":2,"unroll":1,"tile_m":8})").as_object()),
            point);
  expect_error<InternalError>([&] { space.value(point, "tile_n"); }, "no knob named 'tile_n'");
}

TEST(SearchSpace, BadKnobsAndPointsAreCompileErrors) {
  SearchSpace space = tiles();
  expect_error<CompileError>([&] { space.add("tile_m", {1}); }, "knob 'tile_m' is declared twice");
  expect_error<CompileError>([&] { space.add("empty", {}); }, "knob 'empty' has no values");
  auto from_text = [&](const std::string& text) {
    return space.from_json(json::parse(text).as_object());
  };
  expect_error<CompileError>([&] { from_text(R"({"tile_m":8,"unroll":1})"); },
                             "knob 'order' is missing");
  expect_error<CompileError>([&] { from_text(R"({"tile_m":5,"unroll":1,"order":0})"); },
                             "knob 'tile_m' has no value 5");
  expect_error<CompileError>([&] { from_text(R"({"tile_m":"8","unroll":1,"order":0})"); },
                             "knob 'tile_m' must be an integer, got string");
}

}  // namespace
}  // namespace tessel::autotune

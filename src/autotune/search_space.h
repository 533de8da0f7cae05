// SearchSpace: the knobs of a tuning template and the points chosen from them.
//
// A knob is a name and a list of integer values (split factors, unroll depths, booleans as
// 0/1, a loop order as an index into the template's list of orders). A point chooses one
// value per knob and is stored as one index per knob, in the order the knobs were declared.
// A template turns a point into a schedule (and so a Trace); tuners only see the space.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "support/json.h"

namespace tessel::autotune {

/// One tunable parameter and its candidate values.
struct Knob {
  std::string name;
  std::vector<int64_t> values;
};

/// A point of a space: `point[k]` indexes `knobs()[k].values`.
using Point = std::vector<int>;

class SearchSpace {
 public:
  /// Declares a knob; CompileError for an empty value list or a name already declared.
  void add(std::string name, std::vector<int64_t> values);

  const std::vector<Knob>& knobs() const { return knobs_; }
  /// The number of points (saturates at UINT64_MAX).
  uint64_t size() const;
  /// Whether `point` has one in-range index per knob.
  bool contains(const Point& point) const;
  /// The value `point` chooses for knob `name`; InternalError for an unknown knob.
  int64_t value(const Point& point, const std::string& name) const;

  /// The point with mixed-radix index `index` (first knob varies slowest), index < size().
  Point point_at(uint64_t index) const;
  /// The inverse of point_at.
  uint64_t index_of(const Point& point) const;
  /// A point drawn uniformly.
  Point random_point(std::mt19937_64& rng) const;

  /// "tile_m=8 tile_k=0 ..." (values, not indices).
  std::string describe(const Point& point) const;
  /// {"tile_m": 8, ...}: the chosen values by knob name.
  json::Object to_json(const Point& point) const;
  /// The point choosing the values of a to_json object; CompileError naming the knob when a
  /// knob is missing or its value is not among the knob's values.
  Point from_json(const json::Object& values) const;

 private:
  std::vector<Knob> knobs_;
};

}  // namespace tessel::autotune

// SearchSpace: knob declarations, mixed-radix indexing, and points to and from JSON.
#include "autotune/search_space.h"

#include <algorithm>
#include <limits>
#include <sstream>

#include "support/error.h"

namespace tessel::autotune {

void SearchSpace::add(std::string name, std::vector<int64_t> values) {
  if (values.empty()) TESSEL_USER_ERROR("knob '", name, "' has no values");
  for (const Knob& knob : knobs_)
    if (knob.name == name) TESSEL_USER_ERROR("knob '", name, "' is declared twice");
  knobs_.push_back(Knob{std::move(name), std::move(values)});
}

uint64_t SearchSpace::size() const {
  uint64_t size = 1;
  for (const Knob& knob : knobs_) {
    uint64_t n = knob.values.size();
    if (size > std::numeric_limits<uint64_t>::max() / n)
      return std::numeric_limits<uint64_t>::max();
    size *= n;
  }
  return size;
}

bool SearchSpace::contains(const Point& point) const {
  if (point.size() != knobs_.size()) return false;
  for (size_t k = 0; k < knobs_.size(); ++k)
    if (point[k] < 0 || static_cast<size_t>(point[k]) >= knobs_[k].values.size()) return false;
  return true;
}

int64_t SearchSpace::value(const Point& point, const std::string& name) const {
  TESSEL_ICHECK(contains(point), "point of ", point.size(), " indices outside its space");
  for (size_t k = 0; k < knobs_.size(); ++k)
    if (knobs_[k].name == name) return knobs_[k].values[static_cast<size_t>(point[k])];
  TESSEL_INTERNAL_ERROR("no knob named '", name, "'");
}

Point SearchSpace::point_at(uint64_t index) const {
  Point point(knobs_.size());
  for (size_t k = knobs_.size(); k-- > 0;) {
    uint64_t n = knobs_[k].values.size();
    point[k] = static_cast<int>(index % n);
    index /= n;
  }
  return point;
}

uint64_t SearchSpace::index_of(const Point& point) const {
  TESSEL_ICHECK(contains(point), "point of ", point.size(), " indices outside its space");
  uint64_t index = 0;
  for (size_t k = 0; k < knobs_.size(); ++k)
    index = index * knobs_[k].values.size() + static_cast<uint64_t>(point[k]);
  return index;
}

Point SearchSpace::random_point(std::mt19937_64& rng) const {
  Point point(knobs_.size());
  for (size_t k = 0; k < knobs_.size(); ++k)
    point[k] = static_cast<int>(rng() % knobs_[k].values.size());
  return point;
}

std::string SearchSpace::describe(const Point& point) const {
  TESSEL_ICHECK(contains(point), "point of ", point.size(), " indices outside its space");
  std::ostringstream out;
  for (size_t k = 0; k < knobs_.size(); ++k)
    out << (k ? " " : "") << knobs_[k].name << "="
        << knobs_[k].values[static_cast<size_t>(point[k])];
  return out.str();
}

json::Object SearchSpace::to_json(const Point& point) const {
  TESSEL_ICHECK(contains(point), "point of ", point.size(), " indices outside its space");
  json::Object object;
  for (size_t k = 0; k < knobs_.size(); ++k)
    object.emplace_back(knobs_[k].name, knobs_[k].values[static_cast<size_t>(point[k])]);
  return object;
}

Point SearchSpace::from_json(const json::Object& values) const {
  Point point(knobs_.size());
  for (size_t k = 0; k < knobs_.size(); ++k) {
    const Knob& knob = knobs_[k];
    auto member = std::find_if(values.begin(), values.end(),
                               [&](const auto& kv) { return kv.first == knob.name; });
    if (member == values.end()) TESSEL_USER_ERROR("point: knob '", knob.name, "' is missing");
    if (!member->second.is_int())
      TESSEL_USER_ERROR("point: knob '", knob.name, "' must be an integer, got ",
                        member->second.kind_name());
    auto found = std::find(knob.values.begin(), knob.values.end(), member->second.as_int());
    if (found == knob.values.end())
      TESSEL_USER_ERROR("point: knob '", knob.name, "' has no value ", member->second.as_int());
    point[k] = static_cast<int>(found - knob.values.begin());
  }
  return point;
}

}  // namespace tessel::autotune

// Helpers for declaring knob values.
#include "schedules/knobs.h"

#include <algorithm>

namespace tessel::schedules {

std::vector<int64_t> values_up_to(std::vector<int64_t> values, int64_t limit) {
  std::vector<int64_t> kept;
  for (int64_t v : values)
    if (v <= limit) kept.push_back(v);
  if (kept.empty() && !values.empty())
    kept.push_back(*std::min_element(values.begin(), values.end()));
  return kept;
}

}  // namespace tessel::schedules

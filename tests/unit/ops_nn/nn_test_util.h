// Helpers specific to the nn operator tests (the rest is in unit/ops_test_util.h).
#pragma once

#include <cstdint>
#include <vector>

#include "unit/ops_test_util.h"

namespace tessel::ops::testing {

/// Ints attribute.
inline Attribute ints(std::vector<int64_t> v) {
  return Attribute::of_ints(std::move(v));
}

}  // namespace tessel::ops::testing

// Helpers specific to the element-wise operator tests: numpy broadcasting of reference
// operands and result tolerances per element type (the rest is in unit/ops_test_util.h).
#pragma once

#include <cstdint>
#include <vector>

#include "unit/ops_test_util.h"

namespace tessel::ops::testing {

/// The numpy broadcast position in `shape` of output element `k` of `out_shape`.
inline int64_t broadcast_index(const Shape& out_shape, const Shape& shape, int64_t k) {
  int64_t index = 0, stride = 1;
  size_t offset = out_shape.size() - shape.size();
  for (size_t d = out_shape.size(); d-- > 0;) {
    int64_t coordinate = k % out_shape[d];
    k /= out_shape[d];
    if (d < offset) continue;
    int64_t extent = shape[d - offset];
    index += (extent == 1 ? 0 : coordinate) * stride;
    stride *= extent;
  }
  return index;
}

/// Relative tolerance suited to results of `dtype`.
inline double rtol_for(DType dtype) {
  if (dtype.bits == 16) return dtype.code == runtime::DTypeCode::BFloat ? 1e-2 : 2e-3;
  if (dtype == kF32) return 2e-6;
  return 1e-12;
}

}  // namespace tessel::ops::testing

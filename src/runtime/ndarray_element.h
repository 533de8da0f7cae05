// Reading one element of an NDArray of any numeric dtype as a double (for comparisons,
// reports and the compiler's checks of small constants).
#pragma once

#include <cstdint>

#include "runtime/ndarray.h"

namespace tessel::runtime {

/// Element `k` (in row-major order) of `array` as a double; bool reads 0 or 1.
double element_as_double(const NDArray& array, int64_t k);

}  // namespace tessel::runtime

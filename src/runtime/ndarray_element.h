// One element of an NDArray of any numeric dtype read or written as a double (for
// comparisons, reports, the compiler's checks of small constants and tables it computes).
#pragma once

#include <cstdint>

#include "runtime/ndarray.h"

namespace tessel::runtime {

/// Element `k` (in row-major order) of `array` as a double; bool reads 0 or 1.
double element_as_double(const NDArray& array, int64_t k);

/// Element `k` of `data`, of `dtype`, as a long double: exact for every integer and float
/// type the runtime knows (a 64-bit mantissa), so equal values mean equal elements.
long double element_as_long_double(const void* data, DType dtype, int64_t k);

/// Sets element `k` of `array` to `value` converted to its dtype (as a C++ conversion does;
/// bool stores value != 0).
void set_element_from_double(NDArray& array, int64_t k, double value);

}  // namespace tessel::runtime

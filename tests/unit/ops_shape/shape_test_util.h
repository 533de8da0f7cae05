// Helpers specific to the shape operator tests: int64 operand arrays, iota inputs and the
// gather reference of data-movement operators (the rest is in unit/ops_test_util.h).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "unit/ops_test_util.h"

namespace tessel::ops::testing {

/// A 1-d int64 array (shapes, axes, starts, ...).
inline NDArray ints(const std::vector<int64_t>& values) {
  return array_of<int64_t>({static_cast<int64_t>(values.size())}, values);
}

/// An array of `shape` holding 0, 1, 2, ... converted to T.
template <class T>
NDArray iota(const Shape& shape) {
  std::vector<T> values;
  for (int64_t k = 0; k < count(shape); ++k) values.push_back(static_cast<T>(k));
  return array_of<T>(shape, values);
}

/// out[k] = in[source(unravel(k, out_shape))] for every element of `out_shape`: the naive
/// reference of every data-movement operator, given its index mapping.
template <class T>
std::vector<T> gather_reference(const std::vector<T>& in, const Shape& in_shape,
                                const Shape& out_shape,
                                const std::function<Shape(const Shape&)>& source) {
  return generate<T>(out_shape, [&](const Shape& index) {
    return in[static_cast<size_t>(ravel(source(index), in_shape))];
  });
}

}  // namespace tessel::ops::testing

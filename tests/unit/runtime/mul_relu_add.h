// The computation of the test model libraries built by hand (the runtime's, whose kernels
// are C, and the deploy tests', whose kernels are lowered by tessel): y = x * w and
// z = relu(y) + x, element by element; outputs {z, y}. Weights, inputs and the naive
// reference for any size.
#pragma once

#include <cstdint>
#include <vector>

namespace tessel::runtime::test {

/// w[k], as stored in the weights.
inline float mul_relu_add_weight(int64_t k) {
  return 0.25f * static_cast<float>(k % 5) - 0.5f;
}

/// An input of `size` elements with positive and negative values, varied by `seed`.
inline std::vector<float> mul_relu_add_input(int64_t size, int seed) {
  std::vector<float> x(static_cast<size_t>(size));
  for (int64_t k = 0; k < size; ++k)
    x[k] = static_cast<float>((k * 7 + seed * 3) % 11) - 5.0f + 0.5f * static_cast<float>(seed);
  return x;
}

/// The reference outputs {z, y} for input x, by a naive loop.
inline std::vector<std::vector<float>> mul_relu_add_reference(const std::vector<float>& x) {
  std::vector<float> y(x.size()), z(x.size());
  for (size_t k = 0; k < x.size(); ++k) {
    y[k] = x[k] * mul_relu_add_weight(static_cast<int64_t>(k));
    z[k] = (y[k] > 0 ? y[k] : 0.0f) + x[k];
  }
  return {z, y};
}

}  // namespace tessel::runtime::test

// Naive reference loops.
#include "ops/reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace tessel::ops::reference {

Floats matmul(const Floats& a, const Floats& b, int64_t m,
                          int64_t n, int64_t k) {
  std::vector<double> acc(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      double av = a[i * k + p];
      for (int64_t j = 0; j < n; ++j) acc[i * n + j] += av * b[p * n + j];
    }
  return Floats(acc.begin(), acc.end());
}

Floats conv2d_nchw(const Floats& data, const Floats& weight,
                               int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r,
                               int64_t s, int64_t stride, int64_t pad) {
  int64_t oh = (h + 2 * pad - r) / stride + 1, ow = (w + 2 * pad - s) / stride + 1;
  Floats out(static_cast<size_t>(n * k * oh * ow));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < k; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          double sum = 0;
          for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t ry = 0; ry < r; ++ry)
              for (int64_t rx = 0; rx < s; ++rx) {
                int64_t iy = y * stride + ry - pad, ix = x * stride + rx - pad;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                sum += double(data[((b * c + ch) * h + iy) * w + ix]) *
                       weight[((o * c + ch) * r + ry) * s + rx];
              }
          out[((b * k + o) * oh + y) * ow + x] = static_cast<float>(sum);
        }
  return out;
}

Floats softmax(const Floats& x, int64_t rows, int64_t cols) {
  Floats y(x.size());
  for (int64_t i = 0; i < rows; ++i) {
    const float* row = &x[i * cols];
    double mx = *std::max_element(row, row + cols);
    double sum = 0;
    for (int64_t j = 0; j < cols; ++j) sum += std::exp(row[j] - mx);
    for (int64_t j = 0; j < cols; ++j) y[i * cols + j] = static_cast<float>(std::exp(row[j] - mx) / sum);
  }
  return y;
}

double max_scaled_error(const Floats& a, const Floats& b, double rtol,
                        double atol) {
  if (a.size() != b.size()) return std::numeric_limits<double>::quiet_NaN();
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) {
      if (std::isnan(a[i]) != std::isnan(b[i])) return std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    worst = std::max(worst, std::abs(double(a[i]) - b[i]) / (atol + rtol * std::abs(double(b[i]))));
  }
  return worst;
}

Floats random_values(int64_t count, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Floats v(static_cast<size_t>(count));
  for (float& x : v) x = dist(gen);
  return v;
}

}  // namespace tessel::ops::reference

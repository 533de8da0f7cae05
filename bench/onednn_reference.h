// The anchor: oneDNN's fp32 matmul and conv2d, prepared once and run on demand, so that the
// benchmark can interleave its runs with tessel's.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "ops/reference.h"

namespace tessel::bench {

/// A prepared oneDNN primitive with its inputs bound (weights already in oneDNN's layout).
class Anchor {
 public:
  virtual ~Anchor() = default;
  /// Runs the primitive once and waits for it.
  virtual void run() = 0;
  /// The result of the last run, row-major (NCHW for convolutions).
  virtual ops::reference::Floats output() = 0;
};

/// C[M,N] = A[M,K] * B[K,N], row-major; weights B packed by oneDNN when prepared.
std::unique_ptr<Anchor> onednn_matmul(int64_t m, int64_t n, int64_t k,
                                      const ops::reference::Floats& a,
                                      const ops::reference::Floats& b);

/// conv2d of NCHW data [N,C,H,W] with OIHW weights [K,C,R,S]; source, weights and
/// destination in the layouts oneDNN prefers (format any), reordered outside the timing;
/// output() gives NCHW.
std::unique_ptr<Anchor> onednn_conv2d(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k,
                                      int64_t r, int64_t s, int64_t stride, int64_t pad,
                                      const ops::reference::Floats& data,
                                      const ops::reference::Floats& weight);

/// Sets oneDNN's (OpenMP's) thread count.
void set_onednn_threads(int threads);

}  // namespace tessel::bench

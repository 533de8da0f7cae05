// The anchor: oneDNN's fp32 matmul and conv2d, prepared once and run on demand, so that the
// benchmark can interleave its runs with tessel's.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

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
  /// The algorithm oneDNN runs, where it had a choice ("" otherwise).
  virtual std::string label() const { return ""; }
};

/// C[M,N] = A[M,K] * B[K,N], row-major; weights B packed by oneDNN when prepared.
std::unique_ptr<Anchor> onednn_matmul(int64_t m, int64_t n, int64_t k,
                                      const ops::reference::Floats& a,
                                      const ops::reference::Floats& b);

/// The shape of a 2-d convolution: data [N,C,H,W], weights [K,C/groups,R,S].
struct ConvGeometry {
  int64_t n, c, h, w, k, r, s, stride, pad;
  int64_t groups = 1;    ///< C for a depthwise convolution
  int64_t dilation = 1;  ///< spacing of the taps (1: adjacent)
};

/// conv2d of NCHW data with OIHW weights (grouped: [K, C/groups, R, S]); source, weights
/// and destination in the layouts oneDNN prefers (format any), reordered outside the
/// timing; output() gives NCHW. The faster of oneDNN's direct and Winograd algorithms (the
/// latter where oneDNN implements it for the shape and host), timed when prepared.
std::unique_ptr<Anchor> onednn_conv2d(const ConvGeometry& g, const ops::reference::Floats& data,
                                      const ops::reference::Floats& weight);

/// Sets oneDNN's (OpenMP's) thread count.
void set_onednn_threads(int threads);

}  // namespace tessel::bench

// The anchor: oneDNN's fp32 matmul and conv2d, timed the same way as tessel's kernels.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/reference.h"

namespace tessel::bench {

struct AnchorResult {
  double seconds;              ///< median run time
  ops::reference::Floats output;   ///< the result, to check tessel's against
};

/// C[M,N] = A[M,K] * B[K,N], row-major; weights B pre-packed by oneDNN outside the timing.
AnchorResult onednn_matmul(int64_t m, int64_t n, int64_t k, const ops::reference::Floats& a,
                           const ops::reference::Floats& b, int threads);

/// out[N,K,OH,OW] = conv2d(data[N,C,H,W], weight[K,C,R,S]), NCHW in and out, weights in
/// oneDNN's preferred blocked layout (packed outside the timing).
AnchorResult onednn_conv2d(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r,
                           int64_t s, int64_t stride, int64_t pad, const ops::reference::Floats& data,
                           const ops::reference::Floats& weight, int threads);

}  // namespace tessel::bench

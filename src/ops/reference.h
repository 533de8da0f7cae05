// Naive reference implementations (plain C++ loops, independent of the compiler) that the
// demo, tests and benchmarks check tessel's kernels against.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace tessel::ops::reference {

/// Allocates 64-byte aligned storage, so that reference data can be handed to kernels.
template <class T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
  void deallocate(T* p, size_t) { ::operator delete(p, std::align_val_t(64)); }
  bool operator==(const AlignedAllocator&) const { return true; }
};

/// A float array whose data is 64-byte aligned.
using Floats = std::vector<float, AlignedAllocator<float>>;

/// C[M,N] = A[M,K] * B[K,N], row-major, accumulated in double.
Floats matmul(const Floats& a, const Floats& b, int64_t m,
                          int64_t n, int64_t k);

/// NCHW data [N,C,H,W], OIHW weight [K,C,R,S], zero padding, accumulated in double.
Floats conv2d_nchw(const Floats& data, const Floats& weight,
                               int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r,
                               int64_t s, int64_t stride, int64_t pad);

/// Softmax over the last axis of a [rows, cols] matrix, in double.
Floats softmax(const Floats& x, int64_t rows, int64_t cols);

/// The largest |a - b| / (atol + rtol * |b|) over all elements (<= 1 means within tolerance);
/// NaN where the sizes differ or a value is NaN in only one of them.
double max_scaled_error(const Floats& a, const Floats& b, double rtol,
                        double atol);

/// Deterministic uniform values in [-1, 1).
Floats random_values(int64_t count, uint32_t seed);

}  // namespace tessel::ops::reference

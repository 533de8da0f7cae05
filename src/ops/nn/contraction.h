// Matrix products with numpy semantics (1-D operands promoted, batch dimensions broadcast):
// the shape rules and the one compute shared by MatMul, Gemm, MatMulInteger and
// QLinearMatMul, plus the choice of the tuned 2-d float32 matmul where it applies.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/nn/nn_util.h"

namespace tessel::ops::nn {

/// The shapes of a numpy matmul of a [..., M, K] by [..., K, N].
struct MatmulShape {
  std::vector<int64_t> a, b;   ///< operand shapes as given
  std::vector<int64_t> batch;  ///< broadcast batch extents
  int64_t m = 1, k = 1, n = 1;
  /// The output shape: batch, then M unless `a` is 1-D, then N unless `b` is 1-D.
  std::vector<int64_t> output;
};

/// The shapes of a numpy matmul of operands of shapes `a` and `b`; fails naming both shapes
/// when an operand is 0-d, the contracted extents differ or the batch extents do not
/// broadcast.
MatmulShape matmul_shape(const OpContext& ctx, const std::vector<int64_t>& a,
                         const std::vector<int64_t>& b);

/// out[batch..., i, j] = sum_k a[batch..., i, k] * b[batch..., k, j] over operands of the
/// shapes in `shape` (batch extents of 1 broadcast), in the element type the operands load.
/// Loops: b0, b1, ..., i, j (those present in the output), k.
te::Tensor matmul_nd(const MatmulShape& shape, const Operand& a, const Operand& b,
                     const std::string& name);

/// Whether a float32 product of a matrix (or a batch of them) by one matrix takes the tuned
/// matmul compute and schedule (ops/matmul.h, schedules/cpu/matmul.h).
bool use_tuned_matmul(const MatmulShape& shape, ir::DataType dtype);

}  // namespace tessel::ops::nn

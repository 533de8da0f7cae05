// Matrix multiplication: its tensor expression (its CPU schedule: schedules/cpu/matmul.h).
#pragma once

#include <cstdint>
#include <string>

#include "te/compute.h"

namespace tessel::ops {

/// C[..., i, j] = sum_k A[..., i, k] * B[k, j] for A: [..., M, K], B: [K, N] (a batch of
/// left operands shares one right operand). B is read through a stage "<name>.packed" that
/// lays it out in [N/panel][K][panel] panels (columns padded with zeros to a multiple of
/// `panel`, schedules::matmul_panel() of the target): with B known at compile time, the compiler
/// packs it once. The product is the 2-d stage `name` (loops i, j, k); a batched A is read as one
/// matrix of batch x M rows (stage "<name>.rows") and the result reshaped back by a stage
/// "<name>.nd", which is what this returns then.
te::Tensor matmul(const te::Tensor& a, const te::Tensor& b, int64_t panel,
                  const std::string& name = "C");

}  // namespace tessel::ops

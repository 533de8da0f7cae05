// Matrix multiplication: its tensor expression and its CPU schedule.
#pragma once

#include <cstdint>
#include <string>

#include "schedule/schedule.h"
#include "te/compute.h"

namespace tessel::ops {

/// C[i, j] = sum_k A[i, k] * B[k, j] for A: [M, K], B: [K, N]. Loops: i, j, k.
te::Tensor matmul(const te::Tensor& a, const te::Tensor& b, const std::string& name = "C");

/// The knobs of the CPU matmul schedule.
struct MatmulConfig {
  int64_t tile_m = 4;    ///< rows of the register tile
  int64_t tile_n = 16;   ///< columns of the register tile (a multiple of the vector width)
  int64_t tile_k = 0;    ///< reduction block (0: the whole K)
  bool parallel = true;  ///< run tiles across threads
};

/// A register-tile size fitted to the host's vector width (16 floats with AVX-512, else 8).
MatmulConfig default_matmul_config();

/// The blocked CPU schedule: B packed into [N/tile_n][K][tile_n] panels, each tile_m x tile_n
/// tile of C accumulated in a local buffer (registers) over K with the j loop vectorized
/// and the i loop unrolled, tiles run in parallel. `c` must come from matmul().
void schedule_matmul_cpu(schedule::Schedule& s, const te::Tensor& c, const MatmulConfig& config);

}  // namespace tessel::ops

// What the CPU schedules size themselves by, read from the target: the register budgets of
// their register tiles (how many accumulator vectors a tile may keep next to the operands
// of one step) and the weights worth prefetching. The figures were measured on ResNet's
// layers and BERT's products with AVX2's 16 and AVX-512's 32 registers; a target with 32
// registers of another width (AArch64's NEON, RISC-V's V) takes the 32-register figures.
#pragma once

#include <algorithm>
#include <cstdint>

#include "target/target.h"

namespace tessel::schedules {

/// Weights of at least this many bytes are prefetched by the default schedules of the
/// products and convolutions that read them many times (Schedule::prefetch): a core's L2
/// cache holds 1-2 MiB, so larger weights come from memory on every run of a model.
constexpr int64_t kPrefetchMinBytes = int64_t{1} << 20;

/// Accumulator vectors of a blocked (NCHW[x]c or Winograd) convolution's register tile:
/// the registers less the broadcast input, the weight vectors and LLVM's temporaries
/// (28 of 32, 13 of 16).
inline int64_t blocked_conv_accumulators(const target::Target& t) {
  return t.vector_registers >= 32 ? t.vector_registers - 4 : t.vector_registers - 3;
}

/// Accumulator vectors of a register tile whose every step loads `operand_vectors` vectors
/// (a convolution's weights) and broadcasts one element: the registers less those operands
/// and the broadcast, at most three quarters of them (LLVM's temporaries take the rest), in
/// whole steps of the operands' width: 24 of 32 beside 2 or 4 weight vectors, 12 of 16
/// beside 2.
inline int64_t register_tile_accumulators(const target::Target& t, int64_t operand_vectors) {
  int64_t free =
      std::min<int64_t>(t.vector_registers * 3 / 4, t.vector_registers - operand_vectors - 1);
  return std::max<int64_t>(operand_vectors, free / operand_vectors * operand_vectors);
}

/// Accumulator vectors of a direct NCHW convolution's register tile (24 of 32, 10 of 16;
/// more run at half speed or spill).
inline int64_t direct_conv_accumulators(const target::Target& t) {
  return t.vector_registers >= 32 ? t.vector_registers - 8 : t.vector_registers - 6;
}

/// Rows of a matmul register tile of one panel (two vectors a row), next to the panel's
/// two vectors of B and the broadcast element of A: 14 with 32 registers, 6 with 16.
inline int64_t matmul_max_rows(const target::Target& t) {
  return (t.vector_registers - 3) / 2;
}

/// Panels side by side in the default matmul tile: two with 32 registers (6 rows x 4
/// vectors take 24 of them), one with 16 (6 rows x 2 vectors take 12).
inline int64_t matmul_default_panels(const target::Target& t) {
  return t.vector_registers >= 32 ? 2 : 1;
}

/// Columns of B in one packed panel of matmul(): two vectors of float32.
inline int64_t matmul_panel(const target::Target& t) {
  return 2 * t.float_lanes();
}

}  // namespace tessel::schedules

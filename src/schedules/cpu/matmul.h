// The blocked CPU schedule of matmul() (ops/matmul.h) and its tuning template.
#pragma once

#include <cstdint>
#include <optional>

#include "schedule/schedule.h"
#include "schedules/knobs.h"
#include "target/target.h"
#include "te/operation.h"

namespace tessel::schedules {

/// The knobs of the CPU matmul schedule (the tile's width is the panel of matmul()).
struct MatmulConfig {
  int64_t tile_m = 4;  ///< rows of the register tile
  int64_t tile_n = 1;  ///< panels (of matmul()'s width) side by side in the register tile
  /// Reduction block for the caches (0: none, each register tile runs over the whole K):
  /// the rows of a column panel accumulate in a buffer, block after block of K.
  int64_t tile_k = 0;
  int64_t unroll_k = 1;     ///< reduction steps unrolled inside a block (1: none)
  bool rows_outer = false;  ///< row tiles outermost (else column panels outermost)
  bool pack_rows = false;   ///< copy A's rows into tiles of tile_m interleaved first
  /// Prefetch each column tile's packed B while the tile before it runs (the tile loops
  /// then stay unfused, the outer one parallel), so that the first row tile of a column
  /// finds its panels cached instead of waiting for memory. Unset: where packed B takes
  /// 1 MiB or more and has 4 column tiles or more.
  std::optional<bool> prefetch;
  bool parallel = true;  ///< run tiles across threads
};

/// A register tile fitted to the target's vector registers, its reduction unrolled by 8.
MatmulConfig default_matmul_config(const target::Target& target);

/// The matmul template: knobs tile_m, tile_n, tile_k, unroll_k, rows_outer, pack_rows,
/// prefetch for a
/// product of `rows` x `k` by `k` x `columns`, sized to the target's vector registers.
TuningSpace matmul_tuning_space(int64_t rows, int64_t columns, int64_t k,
                                const target::Target& target);
/// default_matmul_config() with the knobs chosen in `knobs`.
MatmulConfig matmul_config(const KnobValues& knobs, const target::Target& target);

/// The blocked CPU schedule: each tile_m x panel tile of C accumulated in registers over K
/// (or over blocks of tile_k steps, the panel's rows in a local buffer) from one packed
/// panel of B, with the j loop vectorized and the i loop unrolled; A's rows first packed
/// in tiles with pack_rows; tiles (and the packing, when it runs) in parallel. `c` must
/// come from matmul().
void schedule_matmul_cpu(schedule::Schedule& s, const te::Tensor& c, const MatmulConfig& config);

}  // namespace tessel::schedules

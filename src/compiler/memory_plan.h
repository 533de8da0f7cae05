// Memory planning: offsets of a model's intermediate tensors in one activation arena.
//
// Each buffer lives from the step that writes it to the last step that reads it. Buffers
// are placed in step order, best fit among the free blocks, all offsets aligned; a step's
// outputs are placed before its inputs are released, so a kernel never reads and writes
// overlapping memory -- except where a buffer is marked in place: it takes the memory of an
// input the same step reads for the last time.
#pragma once

#include <cstdint>
#include <vector>

namespace tessel::compiler {

struct BufferRequest {
  int64_t bytes = 0;
  /// The step that writes the buffer and the last step that reads it (>= first_step).
  int first_step = 0;
  int last_step = 0;
  /// A buffer whose memory this one may take: read for the last time by `first_step`, of
  /// the same aligned size; -1 for none.
  int in_place_of = -1;
};

struct MemoryPlan {
  /// Offset of each buffer in the arena (a multiple of the alignment).
  std::vector<int64_t> offsets;
  /// Bytes of the arena: the planned peak.
  int64_t arena_bytes = 0;
  /// Sum of the aligned sizes of all buffers: the arena without reuse.
  int64_t total_bytes = 0;
  /// Buffers that took their input's memory.
  int in_place = 0;
};

/// Plans `buffers`; alignment must be a power of two.
MemoryPlan plan_memory(const std::vector<BufferRequest>& buffers, int64_t alignment = 64);

}  // namespace tessel::compiler

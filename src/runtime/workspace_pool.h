// The kernels' workspaces (intermediate buffers of a kernel: a padded copy of its input,
// Winograd's transformed tiles) kept for reuse. A compiled model calls each kernel with the
// same sizes on every run; handing back the blocks of the previous run spares the
// allocator's page faults on memory it gave back to the system (a first touch costs
// microseconds per page on virtual machines).
#pragma once

#include <cstdint>

namespace tessel::runtime {

/// At most this many bytes of freed workspaces are kept; larger frees go to the system.
inline constexpr int64_t kWorkspaceCacheBytes = int64_t{512} << 20;

/// A block of `bytes` bytes aligned to `alignment` (a power of two; 0: kAllocAlignment), a
/// kept one of that size when there is one; nullptr when the allocation fails.
void* workspace_alloc(int64_t bytes, int64_t alignment) noexcept;

/// Gives back a block of workspace_alloc, kept for reuse while the cache has room.
void workspace_free(void* ptr) noexcept;

/// The bytes of the blocks kept for reuse now.
int64_t workspace_kept_bytes() noexcept;

}  // namespace tessel::runtime

// Aligned host memory for the runtime: NDArray data and kernel workspaces.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessel::runtime {

/// The alignment of every NDArray and (by default) of every workspace, in bytes.
inline constexpr int64_t kAllocAlignment = 64;

/// Allocates `bytes` bytes aligned to `alignment` (a power of two); never returns null for
/// a successful call, even for 0 bytes. Returns nullptr when the allocation fails or the
/// arguments are invalid (negative size, more than 2^48 bytes, alignment not a power of
/// two).
void* aligned_alloc_bytes(int64_t bytes, int64_t alignment = kAllocAlignment) noexcept;

/// Frees memory from aligned_alloc_bytes; nullptr is accepted.
void aligned_free(void* ptr) noexcept;

}  // namespace tessel::runtime

// Aligned allocation through posix_memalign (free() releases it).
#include "runtime/memory.h"

#include <cstdlib>

namespace tessel::runtime {
namespace {

/// 256 TiB, beyond the user address space of x86-64 and AArch64 Linux: larger requests
/// cannot succeed, and are refused without asking the allocator (which sanitizers would
/// report as an error instead of returning null).
constexpr int64_t kMaxAllocationBytes = int64_t{1} << 48;

}  // namespace

void* aligned_alloc_bytes(int64_t bytes, int64_t alignment) noexcept {
  if (bytes < 0 || bytes > kMaxAllocationBytes) return nullptr;
  if (alignment <= 0 || (alignment & (alignment - 1)) != 0) return nullptr;
  // posix_memalign needs a multiple of sizeof(void*).
  size_t align = alignment < static_cast<int64_t>(sizeof(void*)) ? sizeof(void*)
                                                                 : static_cast<size_t>(alignment);
  void* ptr = nullptr;
  if (posix_memalign(&ptr, align, bytes == 0 ? align : static_cast<size_t>(bytes)) != 0)
    return nullptr;
  return ptr;
}

void aligned_free(void* ptr) noexcept {
  std::free(ptr);
}

}  // namespace tessel::runtime

// workspace_alloc / workspace_free: freed blocks kept by size under one mutex.
#include "runtime/workspace_pool.h"

#include <map>
#include <mutex>
#include <unordered_map>

#include "runtime/memory.h"

namespace tessel::runtime {
namespace {

struct Pool {
  std::mutex mutex;
  /// Every live or kept block: its size and alignment.
  std::unordered_map<void*, std::pair<int64_t, int64_t>> blocks;
  /// Kept blocks by (size, alignment).
  std::multimap<std::pair<int64_t, int64_t>, void*> kept;
  int64_t kept_bytes = 0;
};

Pool& pool() {
  // Never destroyed: kernels may run while static objects are torn down.
  static Pool* instance = new Pool;
  return *instance;
}

}  // namespace

void* workspace_alloc(int64_t bytes, int64_t alignment) noexcept {
  if (alignment == 0) alignment = kAllocAlignment;
  std::pair<int64_t, int64_t> key{bytes, alignment};
  Pool& p = pool();
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    auto found = p.kept.find(key);
    if (found != p.kept.end()) {
      void* ptr = found->second;
      p.kept.erase(found);
      p.kept_bytes -= bytes;
      return ptr;
    }
  }
  void* ptr = aligned_alloc_bytes(bytes, alignment);
  if (!ptr) return nullptr;
  try {
    std::lock_guard<std::mutex> lock(p.mutex);
    p.blocks.emplace(ptr, key);
  } catch (...) {  // no room to track it: it is freed, not kept
  }
  return ptr;
}

void workspace_free(void* ptr) noexcept {
  if (!ptr) return;
  Pool& p = pool();
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    auto found = p.blocks.find(ptr);
    if (found != p.blocks.end()) {
      int64_t bytes = found->second.first;
      if (p.kept_bytes + bytes <= kWorkspaceCacheBytes) {
        try {
          p.kept.emplace(found->second, ptr);
          p.kept_bytes += bytes;
          return;
        } catch (...) {  // no room to keep it: freed below
        }
      }
      p.blocks.erase(found);
    }
  }
  aligned_free(ptr);
}

int64_t workspace_kept_bytes() noexcept {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  return p.kept_bytes;
}

}  // namespace tessel::runtime

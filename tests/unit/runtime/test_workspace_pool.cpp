// runtime::workspace_alloc / workspace_free: a freed block comes back for the next request
// of its size and alignment, aligned; other sizes get their own blocks; a block larger than
// the cache goes back to the system.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "runtime/memory.h"
#include "runtime/workspace_pool.h"

namespace tessel::runtime {
namespace {

bool aligned(void* p, int64_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(alignment) == 0;
}

TEST(WorkspacePool, AFreedBlockServesTheNextRequestOfItsSize) {
  constexpr int64_t kBytes = 3 << 20;
  void* first = workspace_alloc(kBytes, 0);
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(aligned(first, kAllocAlignment));
  std::memset(first, 1, kBytes);
  int64_t kept = workspace_kept_bytes();
  workspace_free(first);
  EXPECT_EQ(workspace_kept_bytes(), kept + kBytes);
  void* again = workspace_alloc(kBytes, 0);
  EXPECT_EQ(again, first);
  EXPECT_EQ(workspace_kept_bytes(), kept);
  // While it is in use, a request of the same size gets another block; of another size or
  // alignment, never the kept one.
  void* second = workspace_alloc(kBytes, 0);
  EXPECT_NE(second, again);
  workspace_free(second);
  void* other_size = workspace_alloc(kBytes + 64, 0);
  EXPECT_NE(other_size, second);
  void* other_alignment = workspace_alloc(kBytes, 4096);
  EXPECT_NE(other_alignment, second);
  EXPECT_TRUE(aligned(other_alignment, 4096));
  for (void* p : {again, other_size, other_alignment}) workspace_free(p);
  workspace_free(nullptr);
}

TEST(WorkspacePool, BlocksLargerThanTheCacheAreNotKept) {
  int64_t kept = workspace_kept_bytes();
  // Never touched, so the system commits no memory for it.
  void* big = workspace_alloc(kWorkspaceCacheBytes + 4096, 0);
  ASSERT_NE(big, nullptr);
  workspace_free(big);
  EXPECT_EQ(workspace_kept_bytes(), kept);
  void* small = workspace_alloc(8192, 0);
  ASSERT_NE(small, nullptr);
  workspace_free(small);
  EXPECT_GE(workspace_kept_bytes(), 8192);
  EXPECT_EQ(workspace_alloc(-1, 0), nullptr);
}

}  // namespace
}  // namespace tessel::runtime

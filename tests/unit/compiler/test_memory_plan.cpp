// plan_memory: reuse after liveness, no overlap of live buffers, in-place hand-over.
#include <gtest/gtest.h>

#include <random>

#include "compiler/memory_plan.h"

namespace tessel::compiler {
namespace {

/// Two buffers overlap in memory and in time.
bool conflict(const BufferRequest& a, int64_t a_offset, const BufferRequest& b, int64_t b_offset) {
  bool in_time = a.first_step <= b.last_step && b.first_step <= a.last_step;
  bool in_space = a_offset < b_offset + std::max<int64_t>(b.bytes, 1) &&
                  b_offset < a_offset + std::max<int64_t>(a.bytes, 1);
  return in_time && in_space;
}

TEST(MemoryPlan, ChainReusesTwoBuffers) {
  // x0 -> x1 -> x2 -> x3 -> x4: each buffer read only by the next step.
  std::vector<BufferRequest> chain;
  for (int s = 0; s < 5; ++s) chain.push_back({1000, s, s + 1, -1});
  MemoryPlan plan = plan_memory(chain);
  EXPECT_EQ(plan.total_bytes, 5 * 1024);
  EXPECT_EQ(plan.arena_bytes, 2 * 1024);
  for (int64_t offset : plan.offsets) EXPECT_EQ(offset % 64, 0);
}

TEST(MemoryPlan, InPlaceTakesTheDonorsMemory) {
  std::vector<BufferRequest> buffers = {{4096, 0, 1, -1}, {4096, 1, 2, 0}, {4096, 2, 3, 1}};
  MemoryPlan plan = plan_memory(buffers);
  EXPECT_EQ(plan.in_place, 2);
  EXPECT_EQ(plan.offsets[0], plan.offsets[1]);
  EXPECT_EQ(plan.offsets[1], plan.offsets[2]);
  EXPECT_EQ(plan.arena_bytes, 4096);
}

TEST(MemoryPlan, InPlaceRefusedWhileTheDonorLivesOn) {
  // Buffer 0 is still read at step 2: buffer 1 (written at step 1) must not take it.
  std::vector<BufferRequest> buffers = {{4096, 0, 2, -1}, {4096, 1, 2, 0}};
  MemoryPlan plan = plan_memory(buffers);
  EXPECT_EQ(plan.in_place, 0);
  EXPECT_NE(plan.offsets[0], plan.offsets[1]);
}

TEST(MemoryPlan, RandomLifetimesNeverOverlap) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<BufferRequest> buffers;
    int n = 1 + static_cast<int>(rng() % 40);
    for (int b = 0; b < n; ++b) {
      int first = static_cast<int>(rng() % 30);
      int last = first + static_cast<int>(rng() % 8);
      int donor = b > 0 && rng() % 3 == 0 ? static_cast<int>(rng() % b) : -1;
      buffers.push_back({static_cast<int64_t>(rng() % 5000), first, last, donor});
    }
    MemoryPlan plan = plan_memory(buffers);
    int64_t peak_live = 0;
    for (int s = 0; s < 40; ++s) {
      int64_t live = 0;
      for (const auto& b : buffers)
        if (b.first_step <= s && s <= b.last_step) live += (std::max<int64_t>(b.bytes, 1) + 63) / 64 * 64;
      peak_live = std::max(peak_live, live);
    }
    for (int a = 0; a < n; ++a) {
      EXPECT_GE(plan.offsets[a], 0);
      EXPECT_LE(plan.offsets[a] + buffers[a].bytes, plan.arena_bytes);
      for (int b = a + 1; b < n; ++b) {
        // A hand-over shares memory on purpose: the donor ends where the taker starts.
        bool handed = (buffers[b].in_place_of == a && buffers[a].last_step == buffers[b].first_step) ||
                      (buffers[a].in_place_of == b && buffers[b].last_step == buffers[a].first_step);
        if (handed && plan.offsets[a] == plan.offsets[b]) continue;
        EXPECT_FALSE(conflict(buffers[a], plan.offsets[a], buffers[b], plan.offsets[b]))
            << "trial " << trial << ": buffers " << a << " and " << b;
      }
    }
    EXPECT_LE(plan.arena_bytes, plan.total_bytes);
  }
}

}  // namespace
}  // namespace tessel::compiler

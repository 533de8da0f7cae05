// plan_memory: liveness-based best-fit placement with in-place reuse.
#include "compiler/memory_plan.h"

#include <algorithm>
#include <map>

#include "support/error.h"

namespace tessel::compiler {
namespace {

int64_t align_up(int64_t bytes, int64_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

/// Free blocks of the arena by offset, merged with their neighbours; the arena grows at
/// its end when no block fits.
class Arena {
 public:
  int64_t allocate(int64_t size) {
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it)
      if (it->second >= size && (best == free_.end() || it->second < best->second)) best = it;
    if (best == free_.end()) {
      // Extend the arena, reusing a free block that ends at its end.
      int64_t offset = end_;
      if (!free_.empty()) {
        auto last = std::prev(free_.end());
        if (last->first + last->second == end_) {
          offset = last->first;
          free_.erase(last);
        }
      }
      end_ = offset + size;
      return offset;
    }
    int64_t offset = best->first;
    int64_t rest = best->second - size;
    free_.erase(best);
    if (rest > 0) free_[offset + size] = rest;
    return offset;
  }

  void release(int64_t offset, int64_t size) {
    auto next = free_.lower_bound(offset);
    if (next != free_.end() && offset + size == next->first) {
      size += next->second;
      next = free_.erase(next);
    }
    if (next != free_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == offset) {
        prev->second += size;
        return;
      }
    }
    free_[offset] = size;
  }

  int64_t end() const { return end_; }

 private:
  std::map<int64_t, int64_t> free_;
  int64_t end_ = 0;
};

}  // namespace

MemoryPlan plan_memory(const std::vector<BufferRequest>& buffers, int64_t alignment) {
  TESSEL_ICHECK(alignment > 0 && (alignment & (alignment - 1)) == 0, "plan_memory: alignment ",
                alignment, " is not a power of two");
  int last = -1;
  std::map<int, std::vector<int>> starting, ending;
  std::vector<int64_t> sizes(buffers.size());
  for (size_t b = 0; b < buffers.size(); ++b) {
    const BufferRequest& request = buffers[b];
    TESSEL_ICHECK(request.bytes >= 0 && request.first_step <= request.last_step,
                  "plan_memory: buffer ", b, " has ", request.bytes, " bytes and lives from step ",
                  request.first_step, " to ", request.last_step);
    sizes[b] = align_up(std::max<int64_t>(request.bytes, 1), alignment);
    starting[request.first_step].push_back(static_cast<int>(b));
    ending[request.last_step].push_back(static_cast<int>(b));
    last = std::max(last, request.last_step);
  }

  MemoryPlan plan;
  plan.offsets.assign(buffers.size(), -1);
  std::vector<bool> handed_over(buffers.size(), false);
  Arena arena;
  for (int step = 0; step <= last; ++step) {
    for (int b : starting[step]) {
      plan.total_bytes += sizes[b];
      int donor = buffers[b].in_place_of;
      if (donor >= 0 && static_cast<size_t>(donor) < buffers.size() && plan.offsets[donor] >= 0 &&
          !handed_over[donor] && buffers[donor].last_step == step && sizes[donor] == sizes[b]) {
        plan.offsets[b] = plan.offsets[donor];
        handed_over[donor] = true;
        ++plan.in_place;
        continue;
      }
      plan.offsets[b] = arena.allocate(sizes[b]);
    }
    for (int b : ending[step])
      if (!handed_over[b]) arena.release(plan.offsets[b], sizes[b]);
  }
  plan.arena_bytes = arena.end();
  return plan;
}

}  // namespace tessel::compiler

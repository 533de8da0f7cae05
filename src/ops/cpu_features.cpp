// The vector width kernels are generated for: host detection and its override.
#include "ops/cpu_features.h"

#include <atomic>

#include "support/error.h"

namespace tessel::ops {
namespace {

int host_float_lanes() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return 16;
  if (__builtin_cpu_supports("avx2")) return 8;
  return 4;
#else
  return 4;
#endif
}

std::atomic<int> lanes_override{0};  // 0: the host's

}  // namespace

int target_float_lanes() {
  int lanes = lanes_override.load(std::memory_order_relaxed);
  if (lanes > 0) return lanes;
  static const int host = host_float_lanes();
  return host;
}

FloatLanesScope::FloatLanesScope(int lanes) : previous_(lanes_override.load()) {
  TESSEL_ICHECK(lanes == 4 || lanes == 8 || lanes == 16, "FloatLanesScope: ", lanes,
                " float lanes (expected 4, 8 or 16)");
  lanes_override.store(lanes);
}

FloatLanesScope::~FloatLanesScope() {
  lanes_override.store(previous_);
}

}  // namespace tessel::ops

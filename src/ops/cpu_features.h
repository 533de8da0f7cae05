// The vector width that default schedules, templates and the blocked layout size
// themselves by: the host's, or a compile target's; and the cache size their defaults assume.
#pragma once

#include <cstdint>

namespace tessel::ops {

/// Weights of at least this many bytes are prefetched by the default schedules of the
/// products and convolutions that read them many times (Schedule::prefetch): a core's L2
/// cache holds 1-2 MiB, so larger weights come from memory on every run of a model.
constexpr int64_t kPrefetchMinBytes = int64_t{1} << 20;

/// float32 lanes of the vector unit kernels are generated for: the host's widest (16 with
/// AVX-512, 8 with AVX2, 4 otherwise) unless a FloatLanesScope says otherwise.
int target_float_lanes();

/// Sets target_float_lanes() for this object's lifetime (e.g. to the lanes of a compile
/// target that is not the host); scopes nest. The setting is process-wide: compiles for
/// different vector widths must not run at the same time.
class FloatLanesScope {
 public:
  explicit FloatLanesScope(int lanes);
  ~FloatLanesScope();
  FloatLanesScope(const FloatLanesScope&) = delete;
  FloatLanesScope& operator=(const FloatLanesScope&) = delete;

 private:
  int previous_;
};

}  // namespace tessel::ops

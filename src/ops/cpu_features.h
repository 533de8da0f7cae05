// The vector width that default schedules, templates and the blocked layout size
// themselves by: the host's, or a compile target's.
#pragma once

namespace tessel::ops {

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

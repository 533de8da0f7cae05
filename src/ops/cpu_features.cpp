// Host CPU feature queries.
#include "ops/cpu_features.h"

namespace tessel::ops {

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

}  // namespace tessel::ops

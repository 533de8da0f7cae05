// What the host CPU offers that default schedules size themselves by.
#pragma once

namespace tessel::ops {

/// float32 lanes of the widest vector unit on the host (16 with AVX-512, 8 with AVX2).
int host_float_lanes();

}  // namespace tessel::ops

// The thread-local message behind tessel_last_error(), shared by the runtime's C entry
// points (c_api.cpp, model_c_api.cpp).
#pragma once

#include <cstdint>

namespace tessel::runtime {

/// Keeps `message` as this thread's last error and returns `status` (never throws).
int32_t set_last_error(int32_t status, const char* message) noexcept;

}  // namespace tessel::runtime

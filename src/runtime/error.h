// The runtime's C++ exception type.
//
// The runtime stands alone (it knows nothing of the compiler), so it has its own error
// class; its C entry points (tessel_runtime.h) catch everything and return status codes.
#pragma once

#include <stdexcept>
#include <string>

namespace tessel::runtime {

/// A failure in the runtime: a module that cannot be loaded, a missing function, a bad
/// argument (negative shape, bad thread count).
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace tessel::runtime

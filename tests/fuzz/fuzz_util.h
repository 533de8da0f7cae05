// Shared by the fuzz targets: each target's LLVMFuzzerTestOneInput feeds the bytes to one
// reader of outside data. A clean rejection (CompileError from the compiler, Error from the
// runtime) is the expected way to refuse bad bytes; anything else — another exception, a
// crash, a sanitizer report, a broken round trip — is a bug, and the target aborts so that
// libFuzzer (or the replay driver) reports it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "runtime/error.h"
#include "support/error.h"

namespace tessel::fuzz {

/// Runs `read`; returns whether it accepted the input (false: it refused it cleanly).
template <class Read>
bool accepts(Read&& read) {
  try {
    read();
    return true;
  } catch (const CompileError&) {
    return false;
  } catch (const runtime::Error&) {
    return false;
  }
}

/// Aborts with `what` when `condition` does not hold: a property every accepted input keeps.
inline void require(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "fuzz property broken: %s\n", what);
  std::abort();
}

inline std::string as_string(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace tessel::fuzz

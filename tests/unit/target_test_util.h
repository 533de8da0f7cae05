// Targets for tests that depend on the vector width: each such test runs for an AVX2 and an
// AVX-512 target, skipped with the reason where this host cannot run the target's code.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "target/host.h"
#include "target/parse_target.h"

namespace tessel::testing {

/// The x86-64 targets a lane-dependent test runs for.
inline const char* const kVectorTargets[] = {"x86-64-avx2", "x86-64-avx512"};

/// Why this host cannot run code for `target` ("" when it can).
inline std::string cannot_run_reason(const target::Target& target) {
  std::string missing;
  if (target::runs_on_host(target, &missing)) return "";
  return "the host (" + target::host().cpu + ") lacks " + missing + ", which '" +
         target.to_string() + "' needs";
}

}  // namespace tessel::testing

/// Skips the test where the host cannot run code for `target`, saying why.
#define TESSEL_SKIP_UNLESS_HOST_RUNS(target)                                       \
  do {                                                                             \
    std::string tessel_skip_reason = ::tessel::testing::cannot_run_reason(target); \
    if (!tessel_skip_reason.empty()) GTEST_SKIP() << tessel_skip_reason;           \
  } while (false)

#!/usr/bin/env bash
# Sets everything up, builds (warnings are errors), and runs the whole test suite.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh" -DTESSEL_WERROR=ON
cd "$root/build"
ctest --output-on-failure -j "$(nproc)" --timeout 600

#!/usr/bin/env bash
# Installs dependencies (first run) and builds tessel into build/ (programs in build/bin/).
# Extra arguments go to CMake, e.g. scripts/build.sh -DTESSEL_SANITIZE=ON.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
build_dir=${TESSEL_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
ninja -C "$build_dir" -j "$(nproc)"

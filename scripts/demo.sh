#!/usr/bin/env bash
# Sets everything up, builds, and runs the operator demo.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh"
"$root/build/bin/tessel" demo "$@"

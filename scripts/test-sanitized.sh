#!/usr/bin/env bash
# Builds the compiler's fast test programs (no LLVM codegen) with AddressSanitizer and
# UBSan into build-asan/ and runs them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
modules=(ir arith te schedule lower tir runtime target graph frontend autotune_records)
cmake -S "$root" -B "$root/build-asan" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTESSEL_SANITIZE=ON \
  -DTESSEL_WERROR=ON >/dev/null
ninja -C "$root/build-asan" -j "$(nproc)" "${modules[@]/#/test_}"
for m in "${modules[@]}"; do
  echo "== test_$m (ASan + UBSan)"
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$root/build-asan/bin/test_$m" --gtest_brief=1
done

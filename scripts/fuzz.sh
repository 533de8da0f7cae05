#!/usr/bin/env bash
# Coverage-guided fuzzing of tessel's readers of outside bytes (tests/fuzz/fuzz_*.cpp) with
# libFuzzer, AddressSanitizer and UBSan, built by clang 19 into build-fuzz/.
#
#   scripts/fuzz.sh [TARGET...] [--time S] [--max-len N]
#
# With no TARGET, every target runs in turn, S seconds each (default 60). Each starts from
# its seed corpus (tests/fuzz/corpus/<target>, plus the ONNX node suite's models and
# tensors for the ONNX readers) and grows a working corpus in build-fuzz/corpus/<target>.
# A crash leaves its input in build-fuzz/crashes/<target>/; reduce it, fix the bug and save
# the input under tests/fuzz/regressions/<target>/ so the test suite replays it. Exits
# non-zero when any target found a crash. Prints one line per target: executions, corpus
# size and crashes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
all_targets=(onnx_model onnx_external_data tensor_pb npy model_plan records_jsonl trace_json
  target_description)
seconds=60
max_len=65536
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) seconds="$2"; shift 2 ;;
    --max-len) max_len="$2"; shift 2 ;;
    -*) echo "fuzz.sh: unknown option '$1'" >&2; exit 2 ;;
    *)
      [[ " ${all_targets[*]} " == *" $1 "* ]] ||
        { echo "fuzz.sh: unknown target '$1' (targets: ${all_targets[*]})" >&2; exit 2; }
      targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

bash "$root/scripts/install-deps.sh"
fuzz_packages=(clang-19 libclang-rt-19-dev)
for p in "${fuzz_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq \
      --no-install-recommends "${fuzz_packages[@]}"
    break
  fi
done

build="$root/build-fuzz"
CC=clang-19 CXX=clang++-19 cmake -S "$root" -B "$build" -G Ninja -DTESSEL_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$build" -j "$(nproc)" "${targets[@]/#/fuzz_}"

node_suite=/usr/share/libonnx-testdata/data/node
# Extra seeds gathered from the node suite (small files only).
extra_seeds() {
  local target=$1
  local dir="$build/seeds/$target"
  [ -d "$node_suite" ] || return 0
  case "$target" in
    onnx_model) pattern='model.onnx' ;;
    tensor_pb) pattern='*.pb' ;;
    *) return 0 ;;
  esac
  if [ ! -d "$dir" ]; then
    mkdir -p "$dir"
    local i=0
    while IFS= read -r f; do
      cp "$f" "$dir/$((i++)).seed"
    done < <(find "$node_suite" -name "$pattern" -size -"$max_len"c | sort)
  fi
  echo "$dir"
}

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=0
for t in "${targets[@]}"; do
  corpus="$build/corpus/$t" crashes="$build/crashes/$t"
  rm -rf "$crashes"  # a crash of an earlier run lives on as a regression input, once fixed
  mkdir -p "$corpus" "$crashes"
  seeds=("$root/tests/fuzz/corpus/$t")
  [ -d "$root/tests/fuzz/regressions/$t" ] && seeds+=("$root/tests/fuzz/regressions/$t")
  extra=$(extra_seeds "$t")
  [ -n "$extra" ] && seeds+=("$extra")
  dict=()
  [ -f "$root/tests/fuzz/dict/$t.dict" ] && dict=("-dict=$root/tests/fuzz/dict/$t.dict")
  log="$build/fuzz-$t.log"
  status=0
  "$build/bin/fuzz_$t" "$corpus" "${seeds[@]}" "${dict[@]}" -max_total_time="$seconds" \
    -max_len="$max_len" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$crashes/" >"$log" 2>&1 || status=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  found=$(find "$crashes" -type f | wc -l)
  printf '%-20s %12s executions  %6s corpus files  %3s crash inputs\n' "$t" "$runs" \
    "$(find "$corpus" -type f | wc -l)" "$found"
  if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then
    failed=1
    echo "  see $log; inputs in $crashes" >&2
    grep -m5 -E 'ERROR|SUMMARY|fuzz property|terminate' "$log" | sed 's/^/  /' >&2 || true
  fi
done
exit "$failed"

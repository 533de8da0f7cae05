#!/usr/bin/env bash
# Exports real models with PyTorch (random weights, fixed seed) and checks that tessel's
# compiled model libraries reproduce PyTorch's outputs (rtol 1e-3, atol 1e-4), with
# convolutions in the blocked layout (the default) and in NCHW, and on a host with AVX-512
# also compiled for AVX2 (x86-64-avx2: the tiles, blocks and layouts of 8-lane vectors).
# Without model names, the small ones.
#   tests/models/check-models.sh <tessel> <out-dir> [model...]
set -euo pipefail
tessel=$1
out=$2
shift 2
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(squeezenet1_1 mobilenet_v2 resnet18 bert_tiny lstm_lm gru_tagger
  greedy_decoder masked_rows masked_pool)
here=$(cd "$(dirname "$0")" && pwd)
/usr/bin/python3 "$here/../../scripts/export-models.py" --out "$out" \
  --models "$(IFS=,; echo "${models[*]}")"
dirs=()
for m in "${models[@]}"; do dirs+=("$out/$m"); done
"$tessel" test-onnx "${dirs[@]}" --compiled --rtol 1e-3 --atol 1e-4 --jobs 2 --timeout 600
"$tessel" test-onnx "${dirs[@]}" --compiled --rtol 1e-3 --atol 1e-4 --jobs 2 --timeout 600 \
  --no-blocked-layout
if grep -qw avx512f /proc/cpuinfo; then
  "$tessel" test-onnx "${dirs[@]}" --compiled --rtol 1e-3 --atol 1e-4 --jobs 2 --timeout 600 \
    --target x86-64-avx2
fi

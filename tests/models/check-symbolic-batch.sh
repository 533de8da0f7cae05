#!/usr/bin/env bash
# Exports real models with a symbolic batch dimension (random weights, fixed seed; data sets
# of 1, 3 and 8 samples with PyTorch's outputs) and checks that one compiled model library
# per model reproduces PyTorch's outputs at every batch size (rtol 1e-3, atol 1e-4).
#   tests/models/check-symbolic-batch.sh <tessel> <out-dir> [model...]
set -euo pipefail
tessel=$1
out=$2
shift 2
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(squeezenet1_1 mobilenet_v2 resnet18)
here=$(cd "$(dirname "$0")" && pwd)
/usr/bin/python3 "$here/../../scripts/export-models.py" --out "$out" --batches 1,3,8 \
  --models "$(IFS=,; echo "${models[*]}")"
dirs=()
for m in "${models[@]}"; do dirs+=("$out/${m}_batched"); done
"$tessel" test-onnx "${dirs[@]}" --compiled --symbolic-batch --rtol 1e-3 --atol 1e-4 --jobs 2 \
  --timeout 600

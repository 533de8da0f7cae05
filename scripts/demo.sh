#!/usr/bin/env bash
# Sets everything up, builds, and runs the main job: export ResNet-18 from PyTorch (random
# weights, fixed seed), compile it into one shared library, run it with the runtime, check
# it against PyTorch's output and time it. `build/bin/tessel demo` is the operator demo.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh"
tessel="$root/build/bin/tessel"
models="$root/build/models"
model=${1:-resnet18}
/usr/bin/python3 "$root/scripts/export-models.py" --out "$models" --models "$model"
"$tessel" compile "$models/$model/model.onnx" -o "$models/$model.so"
"$tessel" run "$models/$model.so" --input "$models/$model/test_data_set_0/input_0.pb" \
  --output-dir "$models/$model-outputs"
"$tessel" test-onnx "$models/$model" --compiled --rtol 1e-3 --atol 1e-4
"$tessel" bench "$models/$model.so" --threads "$(nproc)"

#!/usr/bin/env bash
# Retrains the pre-trained cost model compiled into tessel (src/autotune/pretrained.h):
# tunes a corpus of models with generated spaces and random search (unbiased samples of each
# kernel's candidates) into one records database, trains the ranking model on the loop
# features of those records, writes it to src/autotune/pretrained/cost_model.json, and
# reports how well it ranks the candidates of held-out models tuned the same way, per target.
# The corpus is tuned for each --target (default: the host, and x86-64-avx2 as well on an
# AVX-512 host), so that the model learns from both vector widths (its features hold the
# lanes) and ranks AVX2 candidates with AVX2 experience.
#   scripts/train-cost-model.sh [--tessel PATH] [--work DIR] [--budget SECONDS] [--target T]...
# Rebuild afterwards (scripts/build.sh) to compile the new model in.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tessel=$root/build/bin/tessel
work=$root/build/cost-model-corpus
budget=100
targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --tessel) tessel=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --target) targets+=("$2"); shift 2 ;;
    *) echo "usage: $0 [--tessel PATH] [--work DIR] [--budget SECONDS] [--target T]..." >&2
       exit 2 ;;
  esac
done
if [ ${#targets[@]} -eq 0 ]; then
  targets=(llvm)
  if grep -qw avx512f /proc/cpuinfo; then targets+=(x86-64-avx2); fi
fi
training=(resnet18 mobilenet_v2 squeezenet1_1 bert_tiny efficientnet_b0 convnext_tiny)
held_out=(regnet_y_400mf vit_b_16)
all=("${training[@]}" "${held_out[@]}")
mkdir -p "$work"
/usr/bin/python3 "$root/scripts/export-models.py" --out "$work/models" \
  --models "$(IFS=,; echo "${all[*]}")"
tune() {  # tune <database> <target> <model>...
  local db=$1 target=$2
  shift 2
  for m in "$@"; do
    echo "tuning $m for $target (${budget} s) into $db"
    "$tessel" tune "$work/models/$m/model.onnx" --records "$db" --search auto --tuner random \
      --cost-model none --target "$target" \
      --time-budget "${budget}s" --threads 1 > "$work/$m.${target// /_}.log" 2>&1
  done
}
for i in "${!targets[@]}"; do
  tune "$work/training.sqlite" "${targets[$i]}" "${training[@]}"
  tune "$work/held-out-$i.sqlite" "${targets[$i]}" "${held_out[@]}"
done
"$tessel" tune --records "$work/training.sqlite" \
  --train-cost-model "$root/src/autotune/pretrained/cost_model.json"
for i in "${!targets[@]}"; do
  echo "held out, compiled for ${targets[$i]}:"
  "$tessel" tune --records "$work/held-out-$i.sqlite" \
    --evaluate-cost-model "$root/src/autotune/pretrained/cost_model.json"
done

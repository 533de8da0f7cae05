#!/usr/bin/env bash
# Retrains the pre-trained cost model compiled into tessel (src/autotune/pretrained.h):
# tunes a corpus of models with generated spaces and random search (unbiased samples of each
# kernel's candidates) into one records database, trains the ranking model on the loop
# features of those records, writes it to src/autotune/pretrained/cost_model.json, and
# reports how well it ranks the candidates of held-out models tuned the same way.
#   scripts/train-cost-model.sh [--tessel PATH] [--work DIR] [--budget SECONDS]
# Rebuild afterwards (scripts/build.sh) to compile the new model in.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tessel=$root/build/bin/tessel
work=$root/build/cost-model-corpus
budget=100
while [ $# -gt 0 ]; do
  case $1 in
    --tessel) tessel=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    *) echo "usage: $0 [--tessel PATH] [--work DIR] [--budget SECONDS]" >&2; exit 2 ;;
  esac
done
training=(resnet18 mobilenet_v2 squeezenet1_1 bert_tiny efficientnet_b0 convnext_tiny)
held_out=(regnet_y_400mf vit_b_16)
all=("${training[@]}" "${held_out[@]}")
mkdir -p "$work"
/usr/bin/python3 "$root/scripts/export-models.py" --out "$work/models" \
  --models "$(IFS=,; echo "${all[*]}")"
tune() {  # tune <database> <model>...
  local db=$1
  shift
  for m in "$@"; do
    echo "tuning $m (${budget} s) into $db"
    "$tessel" tune "$work/models/$m/model.onnx" --records "$db" --search auto --tuner random \
      --cost-model none \
      --time-budget "${budget}s" --threads 1 > "$work/$m.log" 2>&1
  done
}
tune "$work/training.sqlite" "${training[@]}"
tune "$work/held-out.sqlite" "${held_out[@]}"
"$tessel" tune --records "$work/training.sqlite" \
  --train-cost-model "$root/src/autotune/pretrained/cost_model.json"
"$tessel" tune --records "$work/held-out.sqlite" \
  --evaluate-cost-model "$root/src/autotune/pretrained/cost_model.json"

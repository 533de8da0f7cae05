#!/usr/bin/env bash
# Installs tessel's system dependencies from Debian's apt and the model benchmark's Python
# venv at .venv (system site packages + onnxruntime from PyPI). Idempotent; apt needs root or sudo.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(
  build-essential cmake ninja-build ccache pkg-config
  llvm-19-dev libzstd-dev zlib1g-dev libedit-dev libxml2-dev libffi-dev
  libgtest-dev libdnnl-dev libprotobuf-dev protobuf-compiler libonnx-dev libonnx-testdata
  libsqlite3-dev libxgboost-dev  # tuning records; the tuner's cost model
  python3 python3-numpy python3-venv python3-onnx python3-torch python3-torchvision
  libopenblas0-openmp  # else Debian's torch (installed without recommends) uses reference BLAS
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -ne 0 ]; then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  echo "installing: ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The model benchmark (bench/compare-models.py) compares against ONNX Runtime, which Debian
# does not package: it lives in a venv that also sees Debian's torch and onnx.
if [ ! -x .venv/bin/python3 ]; then
  echo "creating .venv"
  /usr/bin/python3 -m venv --system-site-packages .venv
fi
if ! .venv/bin/python3 -c 'import onnxruntime' 2>/dev/null; then
  echo "installing onnxruntime into .venv"
  # Only the benchmark needs it: without PyPI, building and testing still work.
  .venv/bin/python3 -m pip install -q onnxruntime ||
    echo "warning: could not install onnxruntime; bench/compare-models.py will lack it" >&2
fi

#!/usr/bin/env bash
# Installs tessel's system dependencies from Debian's apt (idempotent; needs root or sudo).
set -euo pipefail
packages=(
  build-essential cmake ninja-build ccache pkg-config
  llvm-19-dev libzstd-dev zlib1g-dev libedit-dev libxml2-dev libffi-dev
  libgtest-dev libdnnl-dev libprotobuf-dev protobuf-compiler libonnx-dev libonnx-testdata
  python3 python3-numpy
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
echo "installing: ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"

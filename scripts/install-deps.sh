#!/usr/bin/env bash
# Installs what building and testing Mirage needs on Debian 12 (bookworm):
# Debian's LLVM/MLIR 22, Z3, GoogleTest, pybind11, pytest, NumPy and venv, ninja, ccache,
# clang/lld 22 and its runtimes (libFuzzer, sanitizers).
# CUDA (ptxas) is expected under /usr/local/cuda; without it the cubin tests
# are reported as unsupported, not failed.
set -euo pipefail

packages=(
  cmake ninja-build ccache python3 python3-dev python3-venv python3-pytest python3-numpy
  clang-22 lld-22 libclang-rt-22-dev
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libz3-dev libgtest-dev pybind11-dev
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root or install sudo" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"

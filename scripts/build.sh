#!/usr/bin/env bash
# Configures and builds Mirage with ninja, clang 22, lld and ccache into
# ${MIRAGE_BUILD_DIR:-build}. Extra arguments are passed to ninja (targets).
# MIRAGE_SANITIZE=1 configures a new build directory with ASan, UBSan and
# libFuzzer coverage on the project's code and without the Python package
# (scripts/sanitize-lit.sh and scripts/fuzz.sh use build-san).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MIRAGE_BUILD_DIR:-$root/build}"
# Paths relative to the repository in ccache's keys: the wheel build
# (build-wheel/, pyproject.toml) then reuses this build's objects.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"

if [ ! -f "$build/build.ninja" ]; then
  sanitize=()
  if [ "${MIRAGE_SANITIZE:-0}" = 1 ]; then
    sanitize=(-DMIRAGE_SANITIZERS="address;undefined" -DMIRAGE_FUZZ_COVERAGE=ON
              -DMIRAGE_BUILD_PYTHON=OFF)
  fi
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    -DPython3_EXECUTABLE=/usr/bin/python3 \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    "${sanitize[@]}"
fi
ninja -C "$build" "$@"

#!/usr/bin/env bash
# Copied into a GPU package (scripts/gpu-package.sh --torch) with probe.py
# and run there: go.sh OUTDIR. Times the parts' bundles with mirage-run and
# from PyTorch several ways (probe.py).
set -u
out="${1:?usage: go.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader
build=/tmp/mirage-runtime-build
cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF > "$out/build.log" 2>&1 &&
  ninja -C $build >> "$out/build.log" 2>&1 || { tail -20 "$out/build.log"; exit 1; }
run=$(find $build -type f -name mirage-run -perm -u+x | head -n1)
"$run" bundles/* --modes graph,plain,pdl --json "$out/mirage-run.json" 2>&1 | tail -30
export MIRAGE_RUNTIME_LIB=$build/lib/libmirage_runtime_c.so PYTHONUNBUFFERED=1
python3 probe.py mlp_f16 mlp_f16_megakernel attention_f16 mlp_f32 2>&1 | tail -8
cp probe.json "$out/"

#!/usr/bin/env bash
set -u
cd "$(dirname "$0")"
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader
build=/tmp/mirage-runtime-build
cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF > $OUT/build.log 2>&1 && ninja -C $build >> $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
run=$(find $build -type f -name mirage-run -perm -u+x | head -n1)
$run bundles/* --modes graph,plain,pdl --json $OUT/mirage-run.json 2>&1 | tail -30
export MIRAGE_RUNTIME_LIB=$build/lib/libmirage_runtime_c.so PYTHONUNBUFFERED=1
python3 probe.py mlp_f16 mlp_f16_megakernel attention_f16 mlp_f32 2>&1 | tail -8
cp probe.json $OUT/ 2>/dev/null
which nsys ncu 2>&1 | head -3
if command -v nsys >/dev/null; then
  nsys profile -o $OUT/probe --force-overwrite true python3 probe.py mlp_f16 > $OUT/nsys.log 2>&1
  nsys stats --report cuda_gpu_kern_sum $OUT/probe.nsys-rep 2>&1 | head -30
fi

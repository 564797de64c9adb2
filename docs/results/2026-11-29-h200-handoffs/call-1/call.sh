#!/usr/bin/env bash
# Where the mega-kernel's hand-offs go: the Qwen3 decode step's mega-kernel
# traced with five times per task (wait began, events seen, body began,
# writes issued, signals issued), with and without preloading the weights
# before the wait (_nopreload), 1 and 36 layers.
# Run from inside the package: call.sh OUTDIR.
set -u
out="${1:?usage: call.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
echo "build at $(elapsed) s" >> $out/times.txt
b=bundles/qwen3_decode_megakernel
timeout 100 $mr $b $b\_nopreload $b $b\_nopreload $b $b\_nopreload \
  --modes graph --replays 50 --json $out/l1.json > $out/l1.log 2>&1
echo "l1 rc=$? at $(elapsed) s" >> $out/times.txt
b=bundles/qwen3_decode_l36_megakernel
timeout $(( 330 - $(elapsed) )) $mr $b $b\_nopreload \
  --modes graph --replays 20 --json $out/l36.json > $out/l36.log 2>&1
echo "l36 rc=$? at $(elapsed) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && find . -type f -size +2M -delete && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

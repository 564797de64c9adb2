#!/usr/bin/env bash
# Decode-projection tilings on an H200 (benchmarks/tiling-sweep.py --shapes
# "16,4096,4096 1,4096,6144 1,12288,4096": Trinity Vanilla's projections and
# the Qwen3-8B QKV and down projections), bundled with --fuse=false
# --no-reference; every bundle timed in a CUDA graph, two rounds.
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
for round in 1 2; do
  timeout 250 $mr bundles/* --modes graph --replays 50 --json $out/sweep-$round.json > $out/sweep-$round.log 2>&1
  echo "round $round rc=$? at $(elapsed) s" >> $out/times.txt
done
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && find . -type f -size +2M -printf "%s %p\n" > big-files.txt && find . -type f -size +2M -delete && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

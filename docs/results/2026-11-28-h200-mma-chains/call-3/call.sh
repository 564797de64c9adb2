#!/usr/bin/env bash
# Decode-matmul plans by hand after mma chains (at badbf92) on an H200:
# gated_mlp_bs1's kernel and rmsnorm_linear_bs1's Linear with explicit
# columns per block (n), k per step (k) and threads (t), each at the
# automatic stage count (_s0) and at more stages, 128-byte rows also with
# TMA; the two programs as kn-fuse plans them for reference. Every bundle
# is checked and timed in a CUDA graph, in list order and then reversed.
# Run from inside the package: call.sh OUTDIR.
set -u
out="${1:?usage: call.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
start=$(date +%s)
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
list=$(ls -d bundles/*)
timeout 150 $mr $list --modes graph --replays 50 --json $out/plans-1.json > $out/plans-1.log 2>&1
echo "round 1 rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
timeout 150 $mr $(echo $list | tr ' ' '\n' | tac) --modes graph --replays 50 --json $out/plans-2.json > $out/plans-2.log 2>&1
echo "round 2 rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

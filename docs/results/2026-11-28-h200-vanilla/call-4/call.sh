#!/usr/bin/env bash
# Trinity Vanilla's fused kernels (kn-fuse's plan, bundled with --fuse=false
# --no-reference) with more threads for the attention kernels: k3 (K cache
# copy) 512 -> 1024, k4 (QK^T) 128 -> 256, k5 (P V + V cache copy) 128 ->
# 256 or 512, each alone and all together; three rounds alternating (graph,
# PDL), then each bundle's kernels 3 to 5 under Nsight Compute (durations).
# Run from inside the package: call.sh OUTDIR.
set -u
out="${1:?usage: call.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
list=""
for round in 1 2 3; do list="$list $(ls -d bundles/*)"; done
timeout 200 $mr $list --modes graph,pdl --replays 50 --json $out/ab.json > $out/ab.log 2>&1
echo "ab rc=$?" >> $out/times.txt
for b in bundles/*; do
  timeout 60 ncu --clock-control none --target-processes all --kernel-name regex:'_k[345]$' \
    --metrics gpu__time_duration.sum $mr --no-time --no-check $b --json /dev/null > $out/ncu-$(basename $b).txt 2>&1
done
echo "ncu done" >> $out/times.txt
cd $out && find . -type f -size +2M -delete && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

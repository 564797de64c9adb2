#!/usr/bin/env bash
# Flash-attention plans of gqa_bs8 and qknorm_gqa_bs8 (bs 8: 16 KV heads,
# 256 query rows, 4096 cached positions) with the positions per loop step
# (p16 is kn-fuse's plan: 32 steps of 16) and threads varied, each proven
# equivalent to the program beforehand; two rounds, CUDA graph and PDL.
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
list=$(ls -d bundles/*)
for round in 1 2; do
  timeout 200 $mr $list --modes graph,pdl --replays 50 --json $out/round-$round.json > $out/round-$round.log 2>&1
  echo "round $round rc=$? at $(elapsed) s" >> $out/times.txt
done
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && find . -type f -size +2M -delete && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

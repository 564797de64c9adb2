#!/usr/bin/env bash
# Nsight Compute on the decode-shaped programs (memory-bound matmuls at 1.4
# to 1.5x their floor) and gqa_bs1 (its split sums' combine kernel): DRAM
# throughput, bytes in flight and stall reasons. The bundles are timed in a
# CUDA graph first; then each runs once, checked against its float64
# reference, under ncu with the full section set (clocks left as they
# are); each report's details page and its SASS with per-instruction
# samples are kept as text.
# Run from inside the package: call.sh OUTDIR.
set -u
out="${1:?usage: call.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
start=$(date +%s)
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
$mr bundles/* --modes graph --replays 50 --json $out/time.json > $out/time.log 2>&1
echo "time rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
for b in bundles/*; do
  name=$(basename $b)
  timeout 150 ncu --clock-control none --set full --import-source no \
    -o /tmp/$name -f $mr --no-time $b --json /dev/null > $out/ncu-$name.log 2>&1
  echo "ncu $name rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
  ncu --import /tmp/$name.ncu-rep --page details > $out/details-$name.txt 2>&1
  ncu --import /tmp/$name.ncu-rep --page source --print-source sass --csv > $out/sass-$name.csv 2>&1
done
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
# Back as one file: the machine returns only a few.
cd $out && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

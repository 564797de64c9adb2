#!/usr/bin/env bash
# Warp specialization (H200): each TMA program's bundle without (_tma) and
# with a producer warpgroup (_tma_ws), alternating, three rounds, checked
# against the float64 reference and timed (graph, PDL); plain prefill
# (cp.async + wgmma) for reference. Then compute-sanitizer on the _ws
# bundles. Run from inside the package: call.sh OUTDIR.
set -u
out="${1:?usage: call.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
echo "build at $(elapsed) s" >> $out/times.txt
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
list=""
for round in 1 2 3; do
  for ws in bundles/*_tma_ws; do
    list="$list ${ws%_ws} $ws"
  done
done
list="$list bundles/prefill_linear bundles/prefill_linear_t bundles/prefill_linear_small bundles/prefill_linear_small_tiled"
timeout 300 $mr $list --modes graph,pdl --replays 50 --json $out/ab.json > $out/ab.log 2>&1
echo "ab rc=$? at $(elapsed) s" >> $out/times.txt
timeout $(( 560 - $(elapsed) )) ./sanitize.sh $out/sanitize bundles/*_tma_ws > $out/sanitize.txt 2>&1
echo "sanitize rc=$? at $(elapsed) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && find . -type f -size +2M -printf "%s %p\n" > big-files.txt && find . -type f -size +2M -delete && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

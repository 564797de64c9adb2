#!/usr/bin/env bash
# At the head of 2026-11-28's sixth session, on an H200: compute-sanitizer
# (memcheck, racecheck, synccheck) on qknorm_gqa_bs1 (its folded q norm)
# and the 1-layer Qwen3 mega-kernel; then the 36-layer Qwen3-8B-shaped decode
# step per operator (graph, PDL) and as one mega-kernel, twice each.
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
for tool in memcheck racecheck synccheck; do
  timeout 50 compute-sanitizer --tool $tool --print-limit 20 $mr --no-time --deadline-ms 20000 \
    bundles/qknorm_gqa_bs1 bundles/qwen3_decode_megakernel --json /dev/null > $out/$tool.log 2>&1
  echo "$tool rc=$? at $(elapsed) s" >> $out/times.txt
done
timeout $(( 540 - $(elapsed) )) $mr bundles/qwen3_decode_l36_megakernel bundles/qwen3_decode_l36 \
  bundles/qwen3_decode_l36_megakernel bundles/qwen3_decode_l36 \
  --modes graph,pdl --json $out/l36.json > $out/l36.log 2>&1
echo "l36 rc=$? at $(elapsed) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && find . -type f -size +2M -delete && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

#!/usr/bin/env bash
# Poll backoff A/B: the longest sleep between polls 256 ns (default), 32 ns
# and none, on the 1-layer step; 256 and 32 ns on the 36-layer step.
# Copied into the GPU package of programs-call-3.txt and run there:
# call-3.sh OUTDIR.
set -u
out="${1:?usage: call-3.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
start=$(date +%s)
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
B=bundles
$mr $B/qwen3_decode $B/qwen3_decode_megakernel $B/qwen3_decode_megakernel_sleep32 $B/qwen3_decode_megakernel_spin \
  $B/qwen3_decode_megakernel $B/qwen3_decode_megakernel_sleep32 $B/qwen3_decode_megakernel_spin \
  --modes graph,pdl --replays 50 --json $out/small.json > $out/small.log 2>&1
echo "small done at $(( $(date +%s) - start )) s" >> $out/times.txt
timeout $(( 560 - ($(date +%s) - start) )) $mr $B/qwen3_decode_l36_megakernel_sleep32 $B/qwen3_decode_l36_megakernel \
  --modes graph --json $out/l36.json > $out/l36.log 2>&1
echo "l36 rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt

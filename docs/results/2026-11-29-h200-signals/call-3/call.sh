#!/usr/bin/env bash
# Mega-kernel signals by the first warp's lanes (<name>, the code of 12f0496)
# against eb97400 (<name>_old) and against a poll backoff capped at 64 ns
# instead of 256 (_sleep64), alternating; the step per operator (graph, PDL)
# beside them; sanitizers on the new mega-kernels; the 36-layer step as a
# mega-kernel and per operator. Run from inside the package: call.sh OUTDIR.
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
b=bundles
timeout 120 $mr $b/qwen3_decode_megakernel_old $b/qwen3_decode_megakernel $b/qwen3_decode_megakernel_sleep64 \
  $b/qwen3_decode $b/decoder_small_megakernel_old $b/decoder_small_megakernel \
  $b/qwen3_decode_megakernel_old $b/qwen3_decode_megakernel $b/qwen3_decode_megakernel_sleep64 \
  $b/qwen3_decode $b/decoder_small_megakernel_old $b/decoder_small_megakernel \
  $b/qwen3_decode_megakernel_old $b/qwen3_decode_megakernel $b/qwen3_decode_megakernel_sleep64 \
  --modes graph,pdl --replays 50 --json $out/l1.json > $out/l1.log 2>&1
echo "l1 rc=$? at $(elapsed) s" >> $out/times.txt
for tool in memcheck racecheck synccheck; do
  timeout 45 compute-sanitizer --tool $tool --print-limit 20 $mr --no-time --deadline-ms 20000 \
    $b/qwen3_decode_megakernel $b/decoder_small_megakernel --json /dev/null > $out/$tool.log 2>&1
  echo "$tool rc=$? at $(elapsed) s" >> $out/times.txt
done
timeout $(( 480 - $(elapsed) )) $mr $b/qwen3_decode_l36_megakernel $b/qwen3_decode_l36 \
  --modes graph,pdl --replays 20 --json $out/l36.json > $out/l36.log 2>&1
echo "l36 rc=$? at $(elapsed) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && find . -type f -size +2M -delete && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

#!/usr/bin/env bash
# Streaming weights into L2 while DRAM idles (convert-tg-to-gpu
# stream-bytes): the Qwen3 decode step's mega-kernel without (<name>),
# with 32 MB (_s32) and 16 MB (_s16) per streaming kernel, and with 32 MB
# issued only by light tasks (_l32), alternating; memcheck on _s32.
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
timeout 150 $mr $b $b\_s32 $b\_s16 $b\_l32 $b $b\_s32 $b\_s16 $b\_l32 $b $b\_s32 $b\_l32 \
  --modes graph --replays 50 --json $out/l1.json > $out/l1.log 2>&1
echo "l1 rc=$? at $(elapsed) s" >> $out/times.txt
timeout 40 compute-sanitizer --tool memcheck --print-limit 20 $mr --no-time --deadline-ms 20000 \
  $b\_s32 --json /dev/null > $out/memcheck.log 2>&1
echo "memcheck rc=$? at $(elapsed) s" >> $out/times.txt
b=bundles/qwen3_decode_l36_megakernel
timeout $(( 560 - $(elapsed) )) $mr $b $b\_s32 $b\_l32 $b $b\_s32 \
  --modes graph --replays 20 --json $out/l36.json > $out/l36.log 2>&1
echo "l36 rc=$? at $(elapsed) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && find . -type f -size +2M -delete && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

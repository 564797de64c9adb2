#!/usr/bin/env bash
# Wide RMSNorm folds in persistent kernels: the Qwen3 decode step's and
# decoder_small's mega-kernels with the norms folded into the projections
# (<name>) against fold-norms=false (<name>_nofold), alternating; the step
# per operator (graph, PDL) beside them. Run from inside the package:
# call.sh OUTDIR.
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
timeout 150 $mr $b/qwen3_decode_megakernel_nofold $b/qwen3_decode_megakernel $b/qwen3_decode \
  $b/decoder_small_megakernel_nofold $b/decoder_small_megakernel \
  $b/qwen3_decode_megakernel_nofold $b/qwen3_decode_megakernel \
  $b/qwen3_decode_megakernel_nofold $b/qwen3_decode_megakernel \
  $b/decoder_small_megakernel_nofold $b/decoder_small_megakernel \
  --modes graph,pdl --replays 50 --json $out/l1.json > $out/l1.log 2>&1
echo "l1 rc=$? at $(elapsed) s" >> $out/times.txt
timeout $(( 570 - $(elapsed) )) $mr $b/qwen3_decode_l36_megakernel_nofold $b/qwen3_decode_l36_megakernel \
  $b/qwen3_decode_l36 \
  --modes graph,pdl --replays 20 --json $out/l36.json > $out/l36.log 2>&1
echo "l36 rc=$? at $(elapsed) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && find . -type f -size +2M -delete && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

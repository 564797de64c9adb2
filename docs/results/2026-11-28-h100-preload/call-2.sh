#!/usr/bin/env bash
# Preload A/B, call 2: the bundles call 1 did not reach, the 36-layer
# per-operator pair, then the sanitizers on the preloading mega-kernels.
# Copied into the GPU package of programs.txt and run there: call-2.sh OUTDIR.
set -u
out="${1:?usage: call-2.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
start=$(date +%s)
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
B=bundles
small="qwen3_decode_megakernel qwen3_decode_megakernel_nopre qwen3_decode qwen3_decode_nopre residual_rms_norm rms_norm_rsqrt rmsnorm_linear_bs1 rmsnorm_linear_bs1_fused rmsnorm_linear_bs1_fused_megakernel rmsnorm_linear_bs1_megakernel rmsnorm_linear_bs8 rmsnorm_linear_bs8_fused rmsnorm_linear_bs8_fused_megakernel rmsnorm_linear_bs8_megakernel rope safe_softmax silu_gate"
$mr $(for b in $small; do echo $B/$b; done) --modes graph,plain,pdl --json $out/small.json > $out/small.log 2>&1
echo "small done at $(( $(date +%s) - start )) s" >> $out/times.log
$mr $B/qwen3_decode_l36_nopre $B/qwen3_decode_l36 --modes graph,pdl --json $out/l36.json > $out/l36.log 2>&1
echo "l36 done at $(( $(date +%s) - start )) s" >> $out/times.log
for tool in racecheck synccheck memcheck; do
  left=$(( 570 - ($(date +%s) - start) ))
  [ $left -lt 20 ] && { echo "$tool: no time left" >> $out/times.log; continue; }
  timeout $(( left / 2 > 40 ? left / 2 : left )) compute-sanitizer --tool $tool --print-limit 20 $mr --no-time --deadline-ms 60000 \
    $B/qwen3_decode_megakernel $B/gated_mlp_bs8_megakernel $B/qwen3_decode --json /dev/null > $out/$tool.log 2>&1
  echo "$tool rc=$? at $(( $(date +%s) - start )) s" >> $out/times.log
done
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.log

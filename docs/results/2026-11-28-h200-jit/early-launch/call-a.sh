#!/usr/bin/env bash
# Early-launch A/B: each per-operator bundle beside its --early-launch twin,
# twice in alternating order, plain and with programmatic dependent launch;
# the 1-layer decode step and Vanilla also as mega-kernels.
# Run from inside the package: call-a.sh OUTDIR.
set -u
out="${1:?usage: call-a.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
start=$(date +%s)
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
B=bundles
pairs="qwen3_decode gated_mlp_bs1 gated_mlp_bs1_fused gated_mlp_bs8 qknorm_gqa_bs1 qknorm_gqa_bs8 rmsnorm_linear_bs1 rmsnorm_linear_bs1_fused rmsnorm_linear_bs8 rmsnorm_linear_bs8_fused vanilla"
list=""
for p in $pairs; do list="$list $B/$p $B/${p}_early $B/${p}_early $B/$p"; done
$mr $list $B/qwen3_decode_megakernel $B/vanilla_megakernel --modes graph,pdl --replays 50 --json $out/ab.json > $out/ab.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt

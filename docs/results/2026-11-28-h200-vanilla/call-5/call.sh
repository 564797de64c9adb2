#!/usr/bin/env bash
# kn-fuse letting groups with a matmul take more than 128 threads (the
# change under test) against the same programs before it (ab/*_old, built
# at b2e2d8e): every program whose kernels changed, alternating, three
# rounds (graph, PDL), checked against the float64 reference where the
# bundle has one (Trinity's blocks have none); then compute-sanitizer on
# the new bundles with a reference.
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
list=""
for round in 1 2 3; do
  for b in bundles/*; do list="$list ab/$(basename $b)_old $b"; done
done
timeout 300 $mr $list --modes graph,pdl --replays 50 --json $out/ab.json > $out/ab.log 2>&1
echo "ab rc=$? at $(elapsed) s" >> $out/times.txt
timeout $(( 560 - $(elapsed) )) ./sanitize.sh $out/sanitize bundles/gated_mlp_bs8 bundles/gqa_bs1 bundles/gqa_bs8 bundles/lora_bs8 bundles/qknorm_gqa_bs1 bundles/qknorm_gqa_bs8 bundles/qwen3_decode > $out/sanitize.txt 2>&1
echo "sanitize rc=$? at $(elapsed) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && find . -type f -size +2M -printf "%s %p\n" > big-files.txt && find . -type f -size +2M -delete && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

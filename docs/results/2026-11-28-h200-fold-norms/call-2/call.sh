#!/usr/bin/env bash
# The suite after the folded head norms and the spill retry (H200):
# qknorm_gqa_bs1 and Trinity's QK-Norm mega-kernel before (c9cfb31, _old)
# and after, alternating; then every bundle with the PyTorch baselines
# (MIRAGE_PARTS=run,baselines; prefill included).
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
  list="$list ab/qknorm_gqa_bs1_old bundles/qknorm_gqa_bs1 ab/qknorm_megakernel_old bundles/qknorm_megakernel"
done
timeout 90 $mr $list --modes graph,pdl --replays 50 --json $out/ab.json > $out/ab.log 2>&1
echo "ab rc=$? at $(elapsed) s" >> $out/times.txt
MIRAGE_PARTS=run,baselines timeout $(( 570 - $(elapsed) )) ./run.sh $out/suite > $out/run.txt 2>&1
echo "suite rc=$? at $(elapsed) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && find . -type f -size +2M -printf "%s %p\n" > big-files.txt && find . -type f -size +2M -delete && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

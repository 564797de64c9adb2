#!/usr/bin/env bash
# The suite at 2290a12 on an H200 (mma chains, launch bounds, no plans
# with rows straddling 128-byte lines): rmsnorm_linear_bs8 before the
# line rule (592e744, _mid) and after, alternating, twice; then the suite
# (MIRAGE_PARTS=run,baselines; the prefill programs left out for the
# transfer limit). Run from inside the package: call.sh OUTDIR.
set -u
out="${1:?usage: call.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
start=$(date +%s)
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
timeout 60 $mr ab/rmsnorm_linear_bs8_mid bundles/rmsnorm_linear_bs8 ab/rmsnorm_linear_bs8_mid bundles/rmsnorm_linear_bs8 \
  --modes graph,pdl --replays 50 --json $out/ab.json > $out/ab.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
MIRAGE_PARTS=run,baselines timeout $(( 560 - ($(date +%s) - start) )) ./run.sh $out/suite > $out/run.txt 2>&1
echo "suite rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

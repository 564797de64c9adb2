#!/usr/bin/env bash
# Nsight Compute on Trinity Vanilla's per-operator kernels 3 to 5 (the K
# cache copy, QK^T with exp, P V with the V cache copy): speed of light,
# memory, warp states, scheduler, occupancy, launch and source counters
# (the SASS lines that stall most). Clocks as they are.
# Run from inside the package: call.sh OUTDIR.
set -u
out="${1:?usage: call.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
timeout 300 ncu --clock-control none --target-processes all --kernel-name regex:'vanilla_k[345]' \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
  --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats \
  --section SourceCounters --section InstructionStats \
  $mr --no-time --no-check bundles/vanilla --json /dev/null > $out/ncu.txt 2>&1
echo "ncu rc=$?" >> $out/times.txt
cp bundles/vanilla/kernels.ptx $out/ 2>/dev/null
cd $out && find . -type f -size +2M -delete && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

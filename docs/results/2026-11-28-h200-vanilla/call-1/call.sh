#!/usr/bin/env bash
# Trinity's Vanilla block (H200): per operator (default, --tma,
# --tma --warp-specialize) and as one mega-kernel, three rounds alternating
# (graph, PDL), no reference (too large for the interpreter); the PyTorch
# baselines; then each per-operator kernel's time and DRAM bytes from
# Nsight Compute (clocks left as they are, caches flushed between kernels).
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
  list="$list bundles/vanilla bundles/vanilla_tma bundles/vanilla_tma_ws bundles/vanilla_megakernel"
done
timeout 120 $mr $list --modes graph,pdl --replays 50 --json $out/ab.json > $out/ab.log 2>&1
echo "ab rc=$? at $(elapsed) s" >> $out/times.txt
for b in vanilla vanilla_tma_ws; do
  timeout 120 ncu --clock-control none --target-processes all \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active \
    $mr --no-time --no-check bundles/$b --json /dev/null > $out/ncu-$b.txt 2>&1
  echo "ncu $b rc=$? at $(elapsed) s" >> $out/times.txt
done
MIRAGE_PARTS=run,baselines timeout $(( 560 - $(elapsed) )) ./run.sh $out/suite > $out/run.txt 2>&1
echo "suite rc=$? at $(elapsed) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && find . -type f -size +2M -printf "%s %p\n" > big-files.txt && find . -type f -size +2M -delete && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

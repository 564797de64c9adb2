#!/usr/bin/env bash
# mma.sync chains and ptxas's minimum CTAs per SM, on an H200: first an
# A/B of the programs they change most, each at a896abb (_old), with the
# chains only (_chains, e64fb2d) and with both (this commit), alternating,
# twice; then the suite (MIRAGE_PARTS=run,baselines); then Nsight Compute
# on the new gated_mlp_bs1 and rmsnorm_linear_bs1 while time is left.
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
list="gated_mlp_bs1 gated_mlp_bs8 rmsnorm_linear_bs1 rmsnorm_linear_bs8 qwen3_decode gqa_bs1 qknorm_gqa_bs1 lora_bs1"
abs=""
for round in 1 2; do
  for n in $list; do abs="$abs ab/${n}_old ab/${n}_chains bundles/$n"; done
done
timeout 200 $mr $abs --modes graph,pdl --replays 50 --json $out/ab.json > $out/ab.log 2>&1
echo "ab rc=$? at $(elapsed) s" >> $out/times.txt
MIRAGE_PARTS=run,baselines timeout $(( 520 - $(elapsed) )) ./run.sh $out/suite > $out/run.txt 2>&1
echo "suite rc=$? at $(elapsed) s" >> $out/times.txt
for n in gated_mlp_bs1 rmsnorm_linear_bs1; do
  left=$(( 570 - $(elapsed) ))
  [ $left -lt 30 ] && break
  timeout $left ncu --clock-control none --set full --import-source no \
    -o /tmp/$n -f $mr --no-time bundles/$n --json /dev/null > $out/ncu-$n.log 2>&1
  echo "ncu $n rc=$? at $(elapsed) s" >> $out/times.txt
  ncu --import /tmp/$n.ncu-rep --page details > $out/details-$n.txt 2>&1
done
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

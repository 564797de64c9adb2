#!/usr/bin/env bash
# k slices on an H200: an A/B of the programs they change, at a896abb
# (_old), at 592e744 (_mid: mma chains and ptxas's minimum CTAs per SM)
# and at this commit (k slices), alternating, twice; compute-sanitizer on
# the sliced kernels; the 36-layer Qwen3-8B-shaped decode step per
# operator (graph, PDL) and as one mega-kernel (this commit and a896abb);
# then Nsight Compute on gated_mlp_bs1 while time is left.
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
abs=""
for round in 1 2; do
  for n in gated_mlp_bs1 qwen3_decode lora_bs1 qwen3_decode_megakernel; do
    abs="$abs ab/${n}_old ab/${n}_mid bundles/$n"
  done
  for n in gated_mlp_bs8 rmsnorm_linear_bs1 rmsnorm_linear_bs8 gqa_bs1 qknorm_gqa_bs1; do
    abs="$abs ab/${n}_old bundles/$n"
  done
done
timeout 200 $mr $abs --modes graph,pdl --replays 50 --json $out/ab.json > $out/ab.log 2>&1
echo "ab rc=$? at $(elapsed) s" >> $out/times.txt
for tool in racecheck synccheck memcheck; do
  timeout 60 compute-sanitizer --tool $tool --print-limit 20 $mr --no-time --deadline-ms 20000 \
    bundles/gated_mlp_bs1 bundles/lora_bs1 bundles/qwen3_decode bundles/qwen3_decode_megakernel \
    --json /dev/null > $out/$tool.log 2>&1
  echo "$tool rc=$? at $(elapsed) s" >> $out/times.txt
done
timeout $(( 500 - $(elapsed) )) $mr bundles/qwen3_decode_l36 bundles/qwen3_decode_l36_megakernel \
  ab/qwen3_decode_l36_megakernel_old --modes graph,pdl --json $out/l36.json > $out/l36.log 2>&1
echo "l36 rc=$? at $(elapsed) s" >> $out/times.txt
left=$(( 570 - $(elapsed) ))
if [ $left -gt 30 ]; then
  timeout $left ncu --clock-control none --set full --import-source no \
    -o /tmp/gated -f $mr --no-time bundles/gated_mlp_bs1 --json /dev/null > $out/ncu.log 2>&1
  echo "ncu rc=$? at $(elapsed) s" >> $out/times.txt
  ncu --import /tmp/gated.ncu-rep --page details > $out/details-gated_mlp_bs1.txt 2>&1
fi
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

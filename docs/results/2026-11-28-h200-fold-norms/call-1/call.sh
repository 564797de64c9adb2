#!/usr/bin/env bash
# RMSNorms folded into the matmuls that read them (kn-fuse fold-norms), on
# an H200: an A/B of the bundles it changes, before (c9cfb31, _old) and
# after (checked against the float64 reference where they have one),
# alternating, three rounds; sanitizers on the folded kernels; the 36-layer
# Qwen3-8B-shaped decode step per operator and as one mega-kernel, both.
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
  for n in rmsnorm_linear_bs1 rmsnorm_linear_bs8 qwen3_decode qwen3_decode_megakernel qknorm_gqa_bs1 qknorm_gqa_bs8 qknorm; do
    list="$list ab/${n}_old bundles/$n"
  done
done
timeout 220 $mr $list --modes graph,pdl --replays 50 --json $out/ab.json > $out/ab.log 2>&1
echo "ab rc=$? at $(elapsed) s" >> $out/times.txt
for tool in memcheck racecheck; do
  timeout 50 compute-sanitizer --tool $tool --print-limit 20 $mr --no-time --deadline-ms 20000 \
    bundles/rmsnorm_linear_bs8 bundles/qwen3_decode bundles/qwen3_decode_megakernel \
    --json /dev/null > $out/$tool.log 2>&1
  echo "$tool rc=$? at $(elapsed) s" >> $out/times.txt
done
timeout $(( 560 - $(elapsed) )) $mr bundles/qwen3_decode_l36 ab/qwen3_decode_l36_old \
  bundles/qwen3_decode_l36_megakernel ab/qwen3_decode_l36_megakernel_old \
  --modes graph,pdl --json $out/l36.json > $out/l36.log 2>&1
echo "l36 rc=$? at $(elapsed) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

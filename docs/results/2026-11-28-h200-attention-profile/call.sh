#!/usr/bin/env bash
# Nsight Compute on the attention programs' kernels (default forms: kn-fuse
# with split sums): where the partial sums' kernel spends its time. Each
# bundle runs once, checked against its float64 reference, under ncu with
# the full section set (clocks left as they are); the reports' details and
# raw pages are kept as text. Then the bundles timed in a CUDA graph.
# Run from inside the package: call.sh OUTDIR.
set -u
out="${1:?usage: call.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
start=$(date +%s)
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
$mr bundles/* --modes graph --replays 50 --json $out/time.json > $out/time.log 2>&1
echo "time rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
for b in bundles/*; do
  name=$(basename $b)
  timeout 150 ncu --clock-control none --set full --import-source no \
    -o /tmp/$name -f $mr --no-time $b --json /dev/null > $out/ncu-$name.log 2>&1
  echo "ncu $name rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
  ncu --import /tmp/$name.ncu-rep --page details > $out/details-$name.txt 2>&1
  ncu --import /tmp/$name.ncu-rep --page source --print-source sass --csv > $out/sass-$name.csv 2>&1
done
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt

#!/usr/bin/env bash
# The speed model charging each mma job's k over its independent chains
# (as the code generator now runs it), on an H200: the bundles whose plans
# it changes, before (3a66988's plans, _mid, no reference) and after
# (checked against the float64 reference), alternating, three rounds.
# Run from inside the package: call.sh OUTDIR.
set -u
out="${1:?usage: call.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
start=$(date +%s)
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
list=""
for round in 1 2 3; do
  for b in bundles/*; do list="$list ab/$(basename $b)_mid $b"; done
done
timeout 200 $mr $list --modes graph,pdl --replays 50 --json $out/ab.json > $out/ab.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

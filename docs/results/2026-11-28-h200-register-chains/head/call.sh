#!/usr/bin/env bash
# The attention programs at the commit that reviewed register chains (the
# consumer's operand rules, the A registers held through the wait): checked
# against the float64 reference and timed, racecheck and synccheck on the
# chained kernels. Run from inside the package: call.sh OUTDIR.
set -u
out="${1:?usage: call.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
$mr bundles/* --modes graph,pdl --replays 50 --json $out/head.json > $out/head.log 2>&1
echo "run rc=$?" >> $out/head.log
for tool in racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --print-limit 20 $mr --no-time --deadline-ms 20000 \
    bundles/gqa_bs8 bundles/qknorm_gqa_bs8 --json /dev/null > $out/$tool.log 2>&1
  echo "$tool rc=$?" >> $out/$tool.log
done
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/head.log

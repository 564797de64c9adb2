#!/usr/bin/env bash
# The example bundles whose GEMM main loops now keep wgmma groups in flight
# (4 stages where they fit), beside the same built with 2 stages (_st2: as
# before, each step waits for its group); the PyTorch baselines of the
# default bundles; racecheck and synccheck on them.
# Run from inside the package: call-f.sh OUTDIR.
set -u
out="${1:?usage: call-f.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
B=bundles
$mr $B/* $B/* --modes graph,pdl --replays 50 --json $out/inf2.json > $out/inf2.log 2>&1
echo "run rc=$?" >> $out/inf2.log
for tool in racecheck synccheck memcheck; do
  timeout 90 compute-sanitizer --tool $tool --print-limit 20 $mr --no-time \
    $B/gated_mlp_bs8 $B/prefill_linear_t $B/prefill_linear_small_tiled --json /dev/null > $out/$tool.log 2>&1
  echo "$tool rc=$?" >> $out/inf2.log
done
PYTHONUNBUFFERED=1 timeout 400 python3 runtime/python/mirage_baselines.py $B/gated_mlp_bs8 $B/prefill_linear_t \
  --json $out/baselines.json > $out/baselines.log 2>&1
echo "baselines rc=$?" >> $out/inf2.log
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/inf2.log

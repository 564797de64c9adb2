#!/usr/bin/env bash
# Vanilla-shaped attention blocks (2 and 4 heads) with the sums split
# (_split) and not, against their float64 reference, with and without
# scaled weights (_sw); the attention mega-kernels as now built (no split).
# Run from inside the package: call-b.sh OUTDIR.
set -u
out="${1:?usage: call-b.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
$mr bundles/* --modes graph --replays 50 --json $out/ab2.json > $out/ab2.log 2>&1
echo "rc=$?" >> $out/ab2.log
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/ab2.log

#!/usr/bin/env bash
# Flash-decoding split forms of the attention programs, S slices of the cache
# positions, next to the default forms. Run from inside the package: call.sh OUTDIR
set -u
out="${1:?usage: call.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
$mr bundles/* --modes graph,pdl --replays 50 --json $out/split.json > $out/split.log 2>&1
echo "rc=$?" >> $out/split.log
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/split.log

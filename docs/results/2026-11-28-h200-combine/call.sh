#!/usr/bin/env bash
# gqa_bs8's split sums with the totals' kernel given by hand
# (gen-combine.py: rows and heads per block, loop steps, threads), each
# checked against the float64 reference, beside kn-fuse's own gqa_bs8.
# Run from inside the package: call.sh OUTDIR.
set -u
out="${1:?usage: call.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
$mr bundles/* --modes graph,pdl --replays 50 --json $out/combine.json > $out/combine.log 2>&1
echo "run rc=$?" >> $out/combine.log
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/combine.log

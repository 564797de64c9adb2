#!/usr/bin/env bash
# Trinity Vanilla's q, k and v projections (16 x 4096 by three 4096 x 4096):
# kn-fuse's three kernels against one hand-fused kernel reading x once for
# all three (32 columns of each weight a block, k chunks of 512, 256 or
# 128; and 64 columns with chunks of 256), no reference; three rounds
# alternating (graph, PDL). Run from inside the package: call.sh OUTDIR.
set -u
out="${1:?usage: call.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
list=""
for round in 1 2 3; do list="$list $(ls -d bundles/*)"; done
timeout 200 $mr $list --modes graph,pdl --replays 50 --json $out/ab.json > $out/ab.log 2>&1
echo "ab rc=$?" >> $out/times.txt
timeout 60 $mr bundles/* --no-time --no-check --dump-outputs $out/dump --json /dev/null > $out/dump.log 2>&1
python3 - "$out/dump" > $out/compare.txt 2>&1 <<'PY'
import os, sys, numpy as np
root = sys.argv[1]
ref = os.path.join(root, "qkv_separate")
for name in sorted(os.listdir(root)):
    for f in sorted(os.listdir(ref)):
        a = np.fromfile(os.path.join(root, name, f), dtype=np.float16).astype(np.float64)
        b = np.fromfile(os.path.join(ref, f), dtype=np.float16).astype(np.float64)
        print(f"{name} {f}: relative L2 to qkv_separate {np.linalg.norm(a - b) / np.linalg.norm(b):.3g}")
PY
rm -rf $out/dump
cd $out && find . -type f -size +2M -delete && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

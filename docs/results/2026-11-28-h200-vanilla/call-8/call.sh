#!/usr/bin/env bash
# kn-fuse cutting same-shaped sibling outputs together (the change under
# test: the q, k and v projections of Trinity's blocks become one kernel), against the same
# programs before it (ab/*_old, built
# at 1b8e8d4): every program whose kernels changed, alternating, three
# rounds (graph, PDL); Trinity's blocks have no reference: their outputs
# before and after are compared; then compute-sanitizer on Vanilla's new
# bundles.
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
  for b in bundles/*; do list="$list ab/$(basename $b)_old $b"; done
done
timeout 300 $mr $list --modes graph,pdl --replays 50 --json $out/ab.json > $out/ab.log 2>&1
echo "ab rc=$? at $(elapsed) s" >> $out/times.txt
# Trinity's blocks have no reference: their outputs before and after, from
# the same seeded inputs, side by side (relative L2 of each output).
timeout 60 $mr bundles/* ab/* --no-time --no-check --dump-outputs $out/dump --json /dev/null > $out/dump.log 2>&1
python3 - "$out/dump" > $out/compare.txt 2>&1 <<'PY'
import os, sys, numpy as np
root = sys.argv[1]
for name in sorted(os.listdir(root)):
    if name.endswith("_old"):
        continue
    for f in sorted(os.listdir(os.path.join(root, name))):
        new = np.fromfile(os.path.join(root, name, f), dtype=np.float16).astype(np.float64)
        old = np.fromfile(os.path.join(root, name + "_old", f), dtype=np.float16).astype(np.float64)
        rel = np.linalg.norm(new - old) / max(np.linalg.norm(old), 1e-30)
        print(f"{name} {f}: relative L2 {rel:.3g}, non-finite {int((~np.isfinite(new)).sum())}")
PY
rm -rf $out/dump
timeout $(( 560 - $(elapsed) )) ./sanitize.sh $out/sanitize bundles/vanilla bundles/vanilla_megakernel > $out/sanitize.txt 2>&1
echo "sanitize rc=$? at $(elapsed) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && find . -type f -size +2M -printf "%s %p\n" > big-files.txt && find . -type f -size +2M -delete && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

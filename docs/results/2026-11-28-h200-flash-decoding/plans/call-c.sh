#!/usr/bin/env bash
# The split attention's partial-sums kernel with explicit plans: S slices,
# R query rows per block, P positions per loop step (gqa_<bs>_s<S>_r<R>_p<P>),
# beside kn-fuse's default (gqa_bs1, gqa_bs8) and the default checked
# against the float64 reference (_ref); every variant's outputs against the
# default's (same inputs: --scale-weights=false everywhere).
# Run from inside the package: call-c.sh OUTDIR.
set -u
out="${1:?usage: call-c.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
$mr bundles/* --modes graph --replays 50 --dump-outputs /tmp/outputs --json $out/plans.json > $out/plans.log 2>&1
echo "rc=$?" >> $out/plans.log
python3 - /tmp/outputs > $out/compare.txt 2>&1 <<'PY'
import os, sys
sys.path.insert(0, "runtime/python")
import mirage_report as r
d = sys.argv[1]
for b in sorted(os.listdir("bundles")):
    if "_s" not in b or b.endswith("_ref"):
        continue
    base = b.split("_s")[0]
    ref = r.read_dumped_outputs(d, {"bundle": "bundles/" + base + "_ref"})
    print(b, "against", base + "_ref: rel L2",
          r.disagreement(r.read_dumped_outputs(d, {"bundle": "bundles/" + b}), ref))
PY
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/plans.log

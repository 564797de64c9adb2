#!/usr/bin/env bash
# prefill_linear with explicit plans (BM x BN tiles, BK per step, T threads),
# beside kn-fuse's default and the default against its reference (_ref);
# every variant's outputs against _ref (same inputs: --scale-weights=false
# everywhere).
# Run from inside the package: call-d.sh OUTDIR.
set -u
out="${1:?usage: call-d.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
$mr bundles/* --modes graph --replays 50 --dump-outputs /tmp/outputs --json $out/pl.json > $out/pl.log 2>&1
echo "rc=$?" >> $out/pl.log
python3 - /tmp/outputs > $out/compare.txt 2>&1 <<'PY'
import os, sys
sys.path.insert(0, "runtime/python")
import mirage_report as r
d = sys.argv[1]
for b in sorted(os.listdir("bundles")):
    if "_m" not in b or b.endswith("_ref"):
        continue
    base = b.split("_m")[0]
    ref = r.read_dumped_outputs(d, {"bundle": "bundles/" + base + "_ref"})
    print(b, "against", base + "_ref: rel L2",
          r.disagreement(r.read_dumped_outputs(d, {"bundle": "bundles/" + b}), ref))
PY
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/pl.log

#!/usr/bin/env bash
# Again after mma chains and launch bounds (at 11a9e8c). Decode-shaped
# matmuls with plans given by hand (gen-splits.py): plain, and
# split over k into S slices whose partial products a second kernel sums.
# The first plain plan of each shape checked against the float64 reference,
# every plan's outputs against it.
# Run from inside the package: call.sh OUTDIR.
set -u
out="${1:?usage: call.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
start=$(date +%s)
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
$mr bundles/* --modes graph,pdl --replays 50 --dump-outputs /tmp/outputs --json $out/splits.json > $out/splits.log 2>&1
echo "run rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
python3 - /tmp/outputs > $out/compare.txt 2>&1 <<'PY'
import os, sys
sys.path.insert(0, "runtime/python")
import mirage_report as r
d = sys.argv[1]
read = lambda name: r.read_dumped_outputs(d, {"bundle": "bundles/" + name})
for shape, ref in [("oproj", "oproj_s1_n32_k512"), ("down", "down_s1_n32_k1024")]:
    base = read(ref)
    for name in sorted(os.listdir("bundles")):
        if name.startswith(shape + "_") and name != ref:
            print(name, "against", ref + ": rel L2", r.disagreement(read(name), base))
PY
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

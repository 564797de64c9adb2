#!/usr/bin/env bash
# wgmma groups in flight across loop steps: prefill_linear's hand-given
# plans (gen-plans.py) with 2 pipeline stages (copies 1 ahead, each step
# waits for its wgmma group, as before), 3 (copies 1 ahead, the group left
# in flight) and 4 (copies 2 ahead, in flight); every output against the
# reference bundle's (_ref, same inputs); racecheck and synccheck on two
# in-flight bundles. Run from inside the package: call-e.sh OUTDIR.
set -u
out="${1:?usage: call-e.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
$mr bundles/* --modes graph --replays 50 --dump-outputs /tmp/outputs --json $out/inflight.json > $out/inflight.log 2>&1
echo "rc=$?" >> $out/inflight.log
python3 - /tmp/outputs > $out/compare.txt 2>&1 <<'PY'
import os, sys
sys.path.insert(0, "runtime/python")
import mirage_report as r
d = sys.argv[1]
ref = r.read_dumped_outputs(d, {"bundle": "bundles/prefill_linear_ref"})
for b in sorted(os.listdir("bundles")):
    if b.endswith("_ref"):
        continue
    print(b, "against prefill_linear_ref: rel L2",
          r.disagreement(r.read_dumped_outputs(d, {"bundle": "bundles/" + b}), ref))
PY
for tool in racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool --print-limit 20 $mr --no-time \
    bundles/prefill_linear_m64_n64_k64_t128_st4 bundles/prefill_linear_m128_n128_k64_t256_st4 --json /dev/null > $out/$tool.log 2>&1
  echo "$tool rc=$?" >> $out/inflight.log
done
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/inflight.log

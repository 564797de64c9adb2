#!/usr/bin/env bash
# Register chains (FlashAttention's step in registers), unit-dim transposes
# read in place and exp through ex2.approx, on the attention programs: the
# default bundles (checked against their float64 reference) beside the same
# programs built before register chains (_nochain: views and fast exp
# already in), outputs compared; the sanitizers on the chained kernels;
# the PyTorch baselines in the same call.
# Run from inside the package: call.sh OUTDIR.
set -u
out="${1:?usage: call.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
start=$(date +%s)
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
B=bundles
$mr $B/* --modes graph,pdl --replays 50 --dump-outputs /tmp/outputs --json $out/ab.json > $out/ab.log 2>&1
echo "run rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
python3 - /tmp/outputs > $out/compare.txt 2>&1 <<'PY'
import sys
sys.path.insert(0, "runtime/python")
import mirage_report as r
d = sys.argv[1]
for p in ["gqa_bs1", "gqa_bs8", "qknorm_gqa_bs1", "qknorm_gqa_bs8", "vanilla"]:
    base = r.read_dumped_outputs(d, {"bundle": "bundles/" + p + "_nochain"})
    print(p, "against", p + "_nochain: rel L2",
          r.disagreement(r.read_dumped_outputs(d, {"bundle": "bundles/" + p}), base))
PY
for tool in racecheck memcheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --print-limit 20 $mr --no-time --deadline-ms 20000 \
    $B/gqa_bs8 $B/qknorm_gqa_bs8 $B/vanilla --json /dev/null > $out/$tool.log 2>&1
  echo "$tool rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
done
timeout $(( 560 - ($(date +%s) - start) )) env PYTHONUNBUFFERED=1 python3 runtime/python/mirage_baselines.py \
  $B/gqa_bs1 $B/gqa_bs8 $B/qknorm_gqa_bs1 $B/qknorm_gqa_bs8 $B/vanilla \
  --json $out/baselines.json > $out/baselines.log 2>&1
echo "baselines rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
python3 -c 'import torch; print("torch", torch.__version__)' >> $out/times.txt 2>&1
# Back as one file: the machine returns only a few.
cd $out && tar -cf /tmp/res.tar . && rm -rf ./* && mv /tmp/res.tar .

#!/usr/bin/env bash
# Flash decoding (kn-fuse split-sums) on the GPU: the attention programs'
# default forms (sums split over the cache positions) beside the same
# programs fused with split-sums=false (_nosplit), per operator and as
# mega-kernels; Trinity's Vanilla, Pre-Norm and QK-Norm blocks split (the
# local decision) beside unsplit; the PyTorch baselines of the default
# forms; the sanitizers on the split kernels.
# Run from inside the package: call-a.sh OUTDIR.
set -u
out="${1:?usage: call-a.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
start=$(date +%s)
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
B=bundles
$mr $B/* $B/* --modes graph,pdl --replays 50 --dump-outputs /tmp/outputs --json $out/ab.json > $out/ab.log 2>&1
echo "run rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
python3 - /tmp/outputs > $out/compare.txt 2>&1 <<'PY'
import sys
sys.path.insert(0, "runtime/python")
import mirage_report as r
d = sys.argv[1]
for p in ["vanilla", "prenorm", "qknorm", "vanilla_megakernel", "prenorm_megakernel", "qknorm_megakernel"]:
    base = r.read_dumped_outputs(d, {"bundle": "bundles/" + p + "_nosplit"})
    print(p, "against", p + "_nosplit: rel L2",
          r.disagreement(r.read_dumped_outputs(d, {"bundle": "bundles/" + p}), base))
PY
for tool in racecheck memcheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --print-limit 20 $mr --no-time --deadline-ms 20000 \
    $B/gqa_bs1 $B/qknorm_gqa_bs8 $B/gqa_bs1_megakernel --json /dev/null > $out/$tool.log 2>&1
  echo "$tool rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
done
timeout $(( 560 - ($(date +%s) - start) )) env PYTHONUNBUFFERED=1 python3 runtime/python/mirage_baselines.py \
  $B/gqa_bs1 $B/gqa_bs8 $B/qknorm_gqa_bs1 $B/qknorm_gqa_bs8 $B/vanilla \
  --json $out/baselines.json > $out/baselines.log 2>&1
echo "baselines rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
python3 -c 'import torch; print("torch", torch.__version__)' >> $out/times.txt 2>&1

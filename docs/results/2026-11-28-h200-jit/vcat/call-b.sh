#!/usr/bin/env bash
# V concatenation A/B: Vanilla and the Qwen3 decode layer with the V cache's
# concatenation in the kernel of softmax(s) v (as built) and as a kernel of
# its own (_vcat), each form beside the other twice in alternating order.
# Run from inside the package: call-b.sh OUTDIR.
set -u
out="${1:?usage: call-b.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
start=$(date +%s)
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
B=bundles
list=""
for p in vanilla vanilla_megakernel qwen3_decode qwen3_decode_megakernel; do list="$list $B/$p $B/${p}_vcat $B/${p}_vcat $B/$p"; done
$mr $list --modes graph,pdl --replays 50 --json $out/ab.json > $out/ab.log 2>&1
echo "ab rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
# Vanilla has no reference here: compare the two forms' outputs.
$mr $B/vanilla $B/vanilla_vcat $B/vanilla_megakernel_vcat --no-time --dump-outputs $out/outputs > $out/outputs.log 2>&1
echo "outputs rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
python3 - "$out/outputs" > $out/compare.txt 2>&1 <<'PY'
import sys, pathlib
sys.path.insert(0, "runtime/python")
import mirage_report as r
d = sys.argv[1]
base = r.read_dumped_outputs(d, {"bundle": "bundles/vanilla"})
for other in ["vanilla_vcat", "vanilla_megakernel_vcat"]:
    print(other, "against vanilla: rel L2", r.disagreement(r.read_dumped_outputs(d, {"bundle": "bundles/" + other}), base))
PY

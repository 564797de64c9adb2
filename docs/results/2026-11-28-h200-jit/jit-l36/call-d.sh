#!/usr/bin/env bash
# Just-in-time tasks again after the dynamic-dispatch tables fix (both
# dispatch modes, with the sanitizers), then the 36-layer Qwen3-8B-shaped
# decode step per operator (CUDA graph, and with programmatic dependent
# launch) and as one mega-kernel, at this commit on an H200.
# Run from inside the package: call-d.sh OUTDIR.
set -u
out="${1:?usage: call-d.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
start=$(date +%s)
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
B=bundles
list="jit_mlp jit_mlp_megakernel jit_mlp_megakernel_dynamic nojit_mlp_megakernel"
$mr $(for b in $list $list; do echo $B/$b; done) --modes graph,pdl --replays 50 --json $out/jit.json > $out/jit.log 2>&1
echo "jit rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
for tool in racecheck synccheck memcheck; do
  timeout 60 compute-sanitizer --tool $tool --print-limit 20 $mr --no-time --deadline-ms 20000 \
    $B/jit_mlp_megakernel $B/jit_mlp_megakernel_dynamic --json /dev/null > $out/$tool.log 2>&1
  echo "$tool rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
done
timeout $(( 570 - ($(date +%s) - start) )) $mr $B/qwen3_decode_l36 $B/qwen3_decode_l36_megakernel \
  --modes graph,pdl --json $out/l36.json > $out/l36.log 2>&1
echo "l36 rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt

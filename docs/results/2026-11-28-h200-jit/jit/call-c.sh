#!/usr/bin/env bash
# Just-in-time tasks on the GPU: jit_mlp per operator, as a mega-kernel with
# its activation's 128 tasks claimed by the workers (static queues and
# dynamic dispatch), and the same MLP without the mark (all tasks queued);
# the sanitizers on the claiming mega-kernel; then the torch.compile
# backend's parts, whose Executable now launches with programmatic
# dependent launch on the caller's stream.
# Run from inside the package: call-c.sh OUTDIR.
set -u
out="${1:?usage: call-c.sh OUTDIR}"
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
timeout $(( 560 - ($(date +%s) - start) )) env MIRAGE_RUNTIME_LIB="$(find $build -name libmirage_runtime_c.so | head -1)" PYTHONUNBUFFERED=1 \
  python3 runtime/python/run_torch_parts.py torch-parts --json $out/torch-parts.json > $out/torch-parts.log 2>&1
echo "torch parts rc=$? at $(( $(date +%s) - start )) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
python3 -c 'import torch; print("torch", torch.__version__)' >> $out/times.txt 2>&1

#!/usr/bin/env bash
# At the session's last commit: the just-in-time mega-kernels (static
# queues, dynamic dispatch) checked and under the sanitizers, and mirage-run's
# corrected pdl timing (a set's first kernel waits for the set before it;
# one-kernel bundles skip pdl) on the decode layer and four one-kernel
# programs. Run from inside the package: call-g.sh OUTDIR.
set -u
out="${1:?usage: call-g.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
B=bundles
$mr $B/* --modes graph,pdl --replays 50 --json $out/run.json > $out/run.log 2>&1
echo "run rc=$?" >> $out/times.txt
for tool in racecheck synccheck memcheck; do
  timeout 60 compute-sanitizer --tool $tool --print-limit 20 $mr --no-time --deadline-ms 20000 \
    $B/jit_mlp_megakernel $B/jit_mlp_megakernel_dynamic --json /dev/null > $out/$tool.log 2>&1
  echo "$tool rc=$?" >> $out/times.txt
done
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt

#!/usr/bin/env bash
# Trinity's six workloads at 57afb64 (H200): per operator and as one
# mega-kernel, no reference (too large for the interpreter), with the
# PyTorch baselines in the same call (eager, eager in a CUDA graph,
# torch.compile max-autotune in a CUDA graph; MIRAGE_PARTS=run,baselines).
# Run from inside the package: call.sh OUTDIR.
set -u
out="${1:?usage: call.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
MIRAGE_PARTS=run,baselines timeout 320 ./run.sh $out/suite > $out/run.txt 2>&1
echo "suite rc=$? at $(elapsed) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && find . -type f -size +2M -printf "%s %p\n" > big-files.txt && find . -type f -size +2M -delete && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

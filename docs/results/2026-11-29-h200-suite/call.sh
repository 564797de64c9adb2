#!/usr/bin/env bash
# The suite at the session's head (4c19cb3's code; H200): every bundle with
# the PyTorch baselines (MIRAGE_PARTS=run,baselines; prefill and Trinity's
# QK-Norm mega-kernel included), for the geometric mean against
# torch.compile max-autotune in a CUDA graph.
# Run from inside the package: call.sh OUTDIR.
set -u
out="${1:?usage: call.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
MIRAGE_PARTS=run,baselines timeout 560 ./run.sh $out/suite > $out/run.txt 2>&1
echo "suite rc=$? at $(elapsed) s" >> $out/times.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt
cd $out && find . -type f -size +2M -printf "%s %p\n" > big-files.txt && find . -type f -size +2M -delete && tar -czf /tmp/res.tgz . && rm -rf ./* && mv /tmp/res.tgz .

#!/usr/bin/env bash
# The runtime's GPU smoke test: mega-kernel steps (a run, a hang in the
# checked run, a hang while timing, a grid that cannot be resident), the
# three launch modes and tensor map arguments (manifest version 3), on
# kernels written by hand (smoke.cu) rather than by the compiler. Needs nvcc and a GPU of compute capability 9.x.
#
#   runtime/tests/gpu/run-smoke.sh MIRAGE_RUN [WORKDIR]
#
# WORKDIR (default: a new temporary directory) gets the PTX, the bundles and
# mirage-run's results.json. Prints mirage-run's lines, then any expectation
# that failed; exits nonzero if one did.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mirage_run=$1
work=${2:-$(mktemp -d)}
mkdir -p "$work"
nvcc -arch=sm_90a -ptx "$here/smoke.cu" -o "$work/kernels.ptx"
ptxas -arch=sm_90a "$work/kernels.ptx" -o "$work/kernels.cubin" ||
  rm -f "$work/kernels.cubin"
python3 "$here/make_bundles.py" "$work"
# Some bundles fail on purpose: the check below judges the exit status's
# reasons.
"$mirage_run" --modes graph,plain,pdl "$work"/bundles/* \
  --json "$work/results.json" || true
python3 "$here/make_bundles.py" --check "$work/results.json"

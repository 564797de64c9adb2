#!/usr/bin/env bash
# The GPU test package's runner, copied to the package root as run.sh:
#
#   run.sh  runtime/  bundles/<name>/...
#
#   ./run.sh [OUTDIR]      OUTDIR defaults to $OUT, else ./results
#
# Builds the runtime, runs mirage-run (timing every bundle in the three
# launch modes: CUDA graph, plain stream launches, graph with programmatic
# dependent launch) and the PyTorch baselines on every bundle, and merges
# both into OUTDIR/results.json and OUTDIR/summary.md, printing the summary
# table last. Mega-kernel bundles (manifest version 6) need nothing special:
# mirage-run runs them, the baselines skip or time their program like any
# other, and the report sets them beside the per-operator bundles of the
# same program. Every step runs even when an earlier one
# failed; the exit status is nonzero when any step or any bundle's check
# failed. Logs: OUTDIR/*.log. Extra flags for mirage_baselines.py (e.g.
# --no-compile) can be given in $MIRAGE_BASELINES_ARGS, for mirage-run in
# $MIRAGE_RUN_ARGS. $MIRAGE_PARTS (default run,baselines) picks the parts,
# so that a machine with short sessions can take them one call at a time
# into the same OUTDIR; the report always runs on what OUTDIR holds. A
# package with torch-parts/ (gpu-package.sh --torch) also runs them through
# the runtime's C interface from PyTorch (part "torch", on by default;
# OUTDIR/torch-parts.json).
set -euo pipefail

outdir=${1:-${OUT:-./results}}
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
parts=",${MIRAGE_PARTS:-run,baselines,torch},"
# No stale results of the parts that run now.
[[ $parts == *,run,* ]] && rm -rf "$outdir/mirage-run.json" "$outdir/outputs"
[[ $parts == *,baselines,* ]] && rm -f "$outdir/baselines.json"
[[ $parts == *,torch,* ]] && rm -f "$outdir/torch-parts.json"
rm -f "$outdir/results.json"
cd "$(dirname "${BASH_SOURCE[0]}")"
build=/tmp/mirage-runtime-build
# A build of another package's runtime (a second package on the same
# machine) would make cmake refuse this source directory: start afresh.
if [ -f "$build/CMakeCache.txt" ] &&
   ! grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$(pwd)/runtime" "$build/CMakeCache.txt"; then
  rm -rf "$build"
fi
failed=0

date -u
nvidia-smi -L || echo "nvidia-smi -L failed"

shopt -s nullglob
bundles=(bundles/*/)
bundles=("${bundles[@]%/}")
if [ ${#bundles[@]} -eq 0 ]; then
  echo "no bundles under $(pwd)/bundles" >&2
  exit 2
fi
echo "${#bundles[@]} bundles; results in $outdir"

# --- build the runtime ------------------------------------------------------
mirage_run=
echo "== building the runtime (log: build.log)"
if { cmake -S runtime -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
       -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C "$build"; } >"$outdir/build.log" 2>&1; then
  mirage_run=$(find "$build" -type f -name mirage-run -perm -u+x | head -n 1)
fi
if [ -z "$mirage_run" ]; then
  echo "the runtime did not build; the end of build.log:"
  tail -n 40 "$outdir/build.log"
  failed=1
fi

# --- our kernels ------------------------------------------------------------
if [ -n "$mirage_run" ] && [[ $parts == *,run,* ]]; then
  echo "== mirage-run (log: mirage-run.log)"
  run_status=0
  # shellcheck disable=SC2086  # the extra arguments are meant to split
  "$mirage_run" "${bundles[@]}" --modes graph,plain,pdl ${MIRAGE_RUN_ARGS:-} \
    --dump-outputs "$outdir/outputs" --json "$outdir/mirage-run.json" 2>&1 \
    | tee "$outdir/mirage-run.log" || run_status=$?
  if [ "$run_status" -ne 0 ]; then
    echo "mirage-run exited with status $run_status"
    failed=1
  fi
fi

# --- PyTorch baselines ------------------------------------------------------
if [[ $parts == *,baselines,* ]]; then
  echo "== PyTorch baselines (log: baselines.log)"
  base_status=0
  # shellcheck disable=SC2086  # the extra arguments are meant to split
  PYTHONUNBUFFERED=1 python3 runtime/python/mirage_baselines.py "${bundles[@]}" \
    --json "$outdir/baselines.json" ${MIRAGE_BASELINES_ARGS:-} 2>&1 \
    | tee "$outdir/baselines.log" || base_status=$?
  if [ "$base_status" -ne 0 ]; then
    echo "mirage_baselines.py exited with status $base_status"
    failed=1
  fi
fi

# --- torch.compile parts through the runtime's C interface -------------------
if [ -d torch-parts ] && [[ $parts == *,torch,* ]]; then
  echo "== torch.compile parts (log: torch-parts.log)"
  torch_status=0
  MIRAGE_RUNTIME_LIB="$build/lib/libmirage_runtime_c.so" PYTHONUNBUFFERED=1 \
    python3 runtime/python/run_torch_parts.py torch-parts \
    --json "$outdir/torch-parts.json" 2>&1 | tee "$outdir/torch-parts.log" ||
    torch_status=$?
  if [ "$torch_status" -ne 0 ]; then
    echo "run_torch_parts.py exited with status $torch_status"
    failed=1
  fi
fi

# --- the report, printed last -----------------------------------------------
echo "== report"
report_status=0
python3 runtime/python/mirage_report.py \
  --mirage-run "$outdir/mirage-run.json" --baselines "$outdir/baselines.json" \
  --outputs "$outdir/outputs" \
  --json "$outdir/results.json" --markdown "$outdir/summary.md" \
  2>&1 | tee "$outdir/report.log" || report_status=$?
if [ "$report_status" -ne 0 ]; then
  failed=1
fi
exit "$failed"

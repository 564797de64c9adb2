#!/usr/bin/env bash
# Runs mirage-superoptimize twice on each example at 1, 2 and 4 threads and
# checks that the six outputs are byte-identical (issue 11: one seed, one
# answer). Searches run to completion (time-budget=0): a budget that runs out
# depends on the machine's speed, and then so does the result.
#
#   scripts/check-determinism.sh [--options "k=v ..."] [EXAMPLE.mlir...]
#
# --options: extra superoptimize options, e.g. "max-block-ops=4" to bound the
# space on a small machine (default: the pass's defaults). Without examples,
# every examples/*.mlir. Prints one line per example with the search time per
# run and exits non-zero when any example's outputs differ.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MIRAGE_BUILD_DIR:-$root/build}"
options=""
if [ "${1:-}" = "--options" ]; then options="$2"; shift 2; fi
examples=("$@")
[ ${#examples[@]} -gt 0 ] || examples=("$root"/examples/*.mlir)

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0
for example in "${examples[@]}"; do
  name="$(basename "$example" .mlir)"
  times=()
  for threads in 1 2 4; do
    for run in 1 2; do
      start=$(date +%s%N)
      if ! "$build/bin/mirage-opt" "$example" -o "$work/$name.$threads.$run" \
          --mirage-superoptimize="threads=$threads time-budget=0 progress=0 $options" \
          2>"$work/$name.$threads.$run.log"; then
        echo "$name: the search failed at $threads threads (run $run):"
        tail -5 "$work/$name.$threads.$run.log"
        status=1
        continue 3
      fi
      tenths=$(( ($(date +%s%N) - start) / 100000000 ))
      times+=("$((tenths / 10)).$((tenths % 10))")
    done
  done
  same=1
  for output in "$work/$name".*.[12]; do
    cmp -s "$work/$name.1.1" "$output" || { same=0; echo "$name: $output differs"; }
  done
  if [ $same = 1 ]; then
    echo "$name: identical at 1, 2 and 4 threads, two runs each (seconds: ${times[*]})"
  else
    status=1
  fi
done
exit $status

#!/usr/bin/env bash
# Builds the task graph of every function in examples/ with
# mirage-to-task-graph and checks each against its function with
# mirage-verify-equivalence (tasks run in random orders on the CPU); prints
# the verdicts, the task orders tried and the times.
# Usage: benchmarks/verify-task-graphs.sh [build-dir] [example.mlir...]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-${MIRAGE_BUILD_DIR:-$root/build}}"
shift || true
examples=("$@")
[ ${#examples[@]} -gt 0 ] || examples=("$root"/examples/*.mlir)

echo "== task graphs against their functions on $(nproc) cores"
for example in "${examples[@]}"; do
  start=$(date +%s.%N)
  "$build/bin/mirage-opt" "$example" --mirage-to-task-graph \
    --mirage-verify-equivalence --mlir-print-op-on-diagnostic=false \
    -o /dev/null 2>&1 |
    sed -n 's/^.*: \(remark\|warning\|error\): \(\(proven\|tested\|not\|numer\|incon\|cannot\).*\)$/\2/p' |
    sed -E 's/^([^;(]*)(\([^)]*\))?[^;]*;.*; ([0-9]+ task orders); ([0-9.]+ s)$/  \1\3, \4/'
  end=$(date +%s.%N)
  printf '  %s: %.2f s in all\n' "$(basename "$example")" "$(echo "$end - $start" | bc)"
done

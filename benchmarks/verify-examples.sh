#!/usr/bin/env bash
# Times mirage-verify-equivalence on every fused µGraph in examples/ at full
# size and the interpreter on every function; prints the verdicts and times.
# Usage: benchmarks/verify-examples.sh [build-dir]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-${MIRAGE_BUILD_DIR:-$root/build}}"

echo "== mirage-verify-equivalence (3 trials) on $(nproc) cores"
for example in "$root"/examples/*.mlir; do
  grep -q "kn.reference" "$example" || continue
  start=$(date +%s.%N)
  "$build/bin/mirage-opt" "$example" --mirage-verify-equivalence \
    --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 |
    sed -n 's/^.*: \(remark\|warning\|error\): //p' |
    sed -E 's/^([^:]*: [^(;]*).*; ([0-9.]+ s)$/  \1 ... \2/'
  end=$(date +%s.%N)
  printf '  %s: %.2f s in all\n' "$(basename "$example")" "$(echo "$end - $start" | bc)"
done

echo
echo "== the interpreter on every function"
for example in "$root"/examples/*.mlir; do
  "$build/bin/mirage-bench-interpreter" "$example" | tail -n +2
done

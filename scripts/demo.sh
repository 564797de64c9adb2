#!/usr/bin/env bash
# Installs the dependencies, builds mirage-opt and runs it on the bundled
# RMSNorm + Linear example: verifies the reference and fused µGraphs, reports
# what each block graph asks of the GPU, and prints the fused kernel.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MIRAGE_BUILD_DIR:-$root/build}"

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" mirage-opt

example="$root/examples/rmsnorm_linear.mlir"
echo
echo "== mirage-opt --tb-report-resources $example"
"$build/bin/mirage-opt" "$example" --tb-report-resources \
  --mlir-print-op-on-diagnostic=false -o /dev/null
echo
echo "== the fused RMSNorm + Linear kernel, verified and printed"
"$build/bin/mirage-opt" "$example" |
  sed -n '/func.func @rmsnorm_linear_bs1_fused/,/^  }/p'

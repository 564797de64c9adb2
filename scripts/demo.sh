#!/usr/bin/env bash
# Installs the dependencies, builds the compiler and runs it on the bundled
# RMSNorm + Linear example: reports what each block graph asks of the GPU,
# proves the fused µGraphs equivalent to their references, and compiles every
# function into a GPU bundle (PTX, cubin when ptxas is there, launch
# manifest, float64 reference outputs) ready for runtime/mirage-run; then
# superoptimizes the reference program (the search finds Mirage's Fig. 3
# kernel and the verifier proves it).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MIRAGE_BUILD_DIR:-$root/build}"

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" mirage-opt mirage-bundle

example="$root/examples/rmsnorm_linear.mlir"
echo
echo "== mirage-opt --tb-report-resources $example"
"$build/bin/mirage-opt" "$example" --tb-report-resources -o /dev/null
echo
echo "== mirage-opt --mirage-verify-equivalence $example"
"$build/bin/mirage-opt" "$example" --mirage-verify-equivalence -o /dev/null
echo
bundles="$build/demo-bundles"
echo "== mirage-bundle $example -o $bundles"
"$build/bin/mirage-bundle" "$example" -o "$bundles"
echo
echo "== the launch of the fused kernel ($bundles/rmsnorm_linear_bs1_fused/manifest.json)"
python3 - "$bundles/rmsnorm_linear_bs1_fused/manifest.json" <<'PY'
import json, sys
manifest = json.load(open(sys.argv[1]))
for kernel in manifest["kernels"]:
    print("kernel", json.dumps(kernel, sort_keys=True))
for step in manifest["steps"]:
    print("step  ", json.dumps(step, sort_keys=True))
PY
echo
# The superoptimizer on the reference program: Mirage's Fig. 3 kernel.
program="$build/demo-rmsnorm_linear_bs1.mlir"
sed -n '/func.func @rmsnorm_linear_bs1(/,/^}/p' "$example" > "$program"
echo "== mirage-opt --mirage-superoptimize $program (about 100 s on 2 cores)"
"$build/bin/mirage-opt" "$program" --mirage-superoptimize="progress=30" \
  -o "$build/demo-superoptimized.mlir"
echo "-- the µGraph it chose ($build/demo-superoptimized.mlir):"
grep -E 'kn\.|tb\.' "$build/demo-superoptimized.mlir" | sed 's/ : .*//'
echo
echo "Run them on a GPU machine: scripts/gpu-package.sh, then ./run.sh there"
echo "(docs/RunningOnGPU.md)."

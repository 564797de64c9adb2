#!/usr/bin/env bash
# The superoptimizer's candidates on a GPU. Searches the bs1 programs of
# examples/ (attention, GatedMLP, LoRA, RMSNorm + Linear), writes each one's
# verified top-k as MLIR, and builds a GPU test package with them and every
# program of benchmarks/gpu-programs.txt (the hand-written forms):
#
#   benchmarks/search/gpu-topk.sh [OUTDIR]     # default build/search-topk
#   (on the GPU machine)  cd gpu-package && ./run.sh RESULTS
#   benchmarks/search/gpu-topk.sh --choose RESULTS/results.json [OUTDIR]
#
# The second form re-runs the pass with `timings=`, resuming each search
# from its checkpoint, so that it chooses by measured time, and prints the
# choices. $BUDGET: seconds per search (300); $PACKAGE: the package
# directory (gpu-package/).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
opt="${MIRAGE_BUILD_DIR:-$root/build}/bin/mirage-opt"
timings=
if [ "${1:-}" = "--choose" ]; then
  timings="$(realpath "$2")"
  shift 2
fi
out="${1:-$root/build/search-topk}"
budget="${BUDGET:-300}"
programs=(gqa:gqa_bs1 gated_mlp:gated_mlp_bs1 lora:lora_bs1
          rmsnorm_linear:rmsnorm_linear_bs1)

"$root/scripts/build.sh" mirage-opt >/dev/null
mkdir -p "$out"
list="$out/programs.txt"
grep -v '^#' "$root/benchmarks/gpu-programs.txt" > "$list"
for spec in "${programs[@]}"; do
  file="${spec%%:*}" function="${spec##*:}"
  sed -n "/func.func @$function(/,/^}/p" "$root/examples/$file.mlir" \
    > "$out/$function.mlir"
  options="top-k=4 time-budget=$budget progress=60 checkpoint-dir=$out/checkpoints"
  if [ -n "$timings" ]; then
    options+=" timings=$timings"
  else
    options+=" top-k-file=$out/$function.top.mlir"
  fi
  echo "== @$function"
  "$opt" "$out/$function.mlir" -o "$out/$function.chosen.mlir" \
    --mlir-print-op-on-diagnostic=false \
    --mirage-superoptimize="$options" 2>&1 | tee "$out/$function.log" |
    grep -E 'remark|\[mirage' || true
  [ -n "$timings" ] || echo "$out/$function.top.mlir" >> "$list"
done
[ -n "$timings" ] || "$root/scripts/gpu-package.sh" -o "${PACKAGE:-$root/gpu-package}" "$list"

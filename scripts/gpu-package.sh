#!/usr/bin/env bash
# Builds the GPU test package: every program of a list compiled into bundles
# (PTX, cubin, manifest, float64 reference outputs), the runtime sources and
# the runner, in one self-contained directory.
#
#   scripts/gpu-package.sh [-o DIR] [--torch] [LIST]
#
# DIR defaults to gpu-package/ (ignored by git), LIST to
# benchmarks/gpu-programs.txt: per line an input file, the functions to
# compile (default all) and mirage-bundle flags (words starting with --,
# e.g. --megakernel). --torch adds the torch.compile backend's parts of the
# test models (scripts/torch-parts.py, run by build/venv's python) and their
# runner. Programs too large to commit are generated first into
# build/generated/ (the 36-layer Qwen3-8B-shaped decode step). On a machine
# with a GPU and CUDA:
#
#   cd DIR && ./run.sh [RESULTS_DIR]
#
# builds the runtime, runs every bundle and the PyTorch baselines, and
# writes JSON results (docs/RunningOnGPU.md).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/gpu-package"
if [ "${1:-}" = "-o" ]; then
  out="$2"
  shift 2
fi
torch_parts=0
if [ "${1:-}" = "--torch" ]; then
  torch_parts=1
  shift
fi
list="${1:-$root/benchmarks/gpu-programs.txt}"

"$root/scripts/build.sh" mirage-bundle >/dev/null
mkdir -p "$root/build/generated"
python3 "$root/examples/decoder/gen_decoder.py" --preset qwen3-8b --layers 36 \
  --name qwen3_decode_l36 -o "$root/build/generated/qwen3_decode_l36.mlir"
rm -rf "$out"
mkdir -p "$out/bundles"
failed=0
while read -r file words; do
  case "$file" in ''|'#'*) continue ;; esac
  args=()
  for word in $words; do
    case "$word" in
      --*) args+=("$word") ;;
      *) args+=(--function "$word") ;;
    esac
  done
  echo "== $file ${args[*]}"
  case "$file" in /*) ;; *) file="$root/$file" ;; esac
  "$root/build/bin/mirage-bundle" "$file" -o "$out/bundles" \
    "${args[@]}" || failed=1
done < "$list"

mkdir -p "$out/runtime"
cp -r "$root/runtime/CMakeLists.txt" "$root/runtime/include" \
  "$root/runtime/lib" "$root/runtime/tools" "$out/runtime/"
mkdir -p "$out/runtime/python"
cp "$root"/runtime/python/*.py "$out/runtime/python/"
if [ "$torch_parts" = 1 ]; then
  "$root/scripts/build.sh" mirage-python >/dev/null
  "$("$root/scripts/python-env.sh")" "$root/scripts/torch-parts.py" \
    "$out/torch-parts" || failed=1
  cp "$root/python/mirage_mlir/runtime.py" \
    "$out/runtime/python/mirage_mlir_runtime.py"
fi
mkdir -p "$out/runtime/tests"
cp -r "$root/runtime/tests/gpu" "$out/runtime/tests/"
cp "$root/runtime/run-package.sh" "$out/run.sh"
cp "$root/runtime/sanitize-package.sh" "$out/sanitize.sh"
cp "$root/runtime/profile-package.sh" "$out/profile.sh"
cp "$root/runtime/compare-package.sh" "$out/compare.sh"
chmod +x "$out/run.sh" "$out/sanitize.sh" "$out/profile.sh" "$out/compare.sh"
echo "$(ls "$out/bundles" | wc -l) bundles, $(du -sh "$out" | cut -f1) in $out"
exit "$failed"

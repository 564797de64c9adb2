#!/usr/bin/env bash
# Stress run of mirage-superoptimize: GatedMLP (@gated_mlp_bs1 of
# examples/gated_mlp.mlir with 4096 shrunk to 64: x 8x64, W1 and W2 64x64)
# with max-block-ops=2, a search of about a tenth of a second whose branches
# often ask for the same block-graph lists at once, searched again and again
# at each thread count with a per-run timeout. A run that hits the timeout
# is a hang; every finished run must print the same IR (the ranking is
# deterministic).
# Usage: stress.sh [runs per thread count (200)] [thread counts (1 2 4)...]
# Environment: TIMEOUT (seconds per run, 60), OPTIONS (search options,
# "max-block-ops=2"), MIRAGE_OPT (the binary; default
# ${MIRAGE_BUILD_DIR:-build}/bin/mirage-opt).
# Prints a markdown table; exits 1 when any run hung, failed or differed.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
opt="${MIRAGE_OPT:-${MIRAGE_BUILD_DIR:-$root/build}/bin/mirage-opt}"
runs="${1:-200}"
shift || true
threads=("${@:-1 2 4}")
read -r -a threads <<< "${threads[*]}"
timeout="${TIMEOUT:-60}"
options="${OPTIONS:-max-block-ops=2}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
program="$work/program.mlir"
sed -n '/^func.func @gated_mlp_bs1(/,/^}/p' "$root/examples/gated_mlp.mlir" |
  sed 's/4096/64/g' > "$program"

bad=0
reference=""
echo "| threads | runs | finished | hung (> ${timeout} s) | failed | other output | median (s) | max (s) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for t in "${threads[@]}"; do
  finished=0 hung=0 failed=0 differed=0
  : > "$work/times"
  for ((i = 0; i < runs; ++i)); do
    start=$(date +%s.%N)
    rc=0
    timeout -k 5 "$timeout" "$opt" "$program" -o "$work/out.mlir" \
      --mlir-print-op-on-diagnostic=false \
      --mirage-superoptimize="$options threads=$t progress=0" \
      2> "$work/err" || rc=$?
    end=$(date +%s.%N)
    if [[ $rc -eq 124 || $rc -eq 137 ]]; then
      hung=$((hung + 1))
      echo "threads=$t run $i: no result after $timeout s" >&2
      continue
    fi
    if [[ $rc -ne 0 ]] || ! grep -q 'chose #1' "$work/err"; then
      failed=$((failed + 1))
      echo "threads=$t run $i: exit $rc: $(head -c 300 "$work/err")" >&2
      continue
    fi
    finished=$((finished + 1))
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }' >> "$work/times"
    digest="$(sha256sum < "$work/out.mlir")"
    if [[ -z "$reference" ]]; then
      reference="$digest"
    elif [[ "$digest" != "$reference" ]]; then
      differed=$((differed + 1))
    fi
  done
  if [[ $finished -gt 0 ]]; then
    sort -g "$work/times" > "$work/sorted"
    median="$(sed -n "$(((finished + 1) / 2))p" "$work/sorted")"
    max="$(tail -n 1 "$work/sorted")"
    median="$(printf '%.2f' "$median")" max="$(printf '%.2f' "$max")"
  else
    median="-" max="-"
  fi
  echo "| $t | $runs | $finished | $hung | $failed | $differed | $median | $max |"
  bad=$((bad + hung + failed + differed))
done
[[ $bad -eq 0 ]]

#!/usr/bin/env bash
# Search time of mirage-superoptimize on RMSNorm + Linear (examples/
# rmsnorm_linear.mlir, @rmsnorm_linear_bs1) against the block-op limit, with
# and without abstract-expression pruning: Mirage v3 Table 5 on this machine.
# Usage: table5.sh [budget-seconds] [block-op limits...]
# Prints a markdown table; a run that hits the budget is reported as "> budget".
# Without pruning, only the limits in $UNPRUNED_LIMITS (default "5 6") run:
# the space only grows with the limit, so the others exceed the budget too.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
opt="${MIRAGE_BUILD_DIR:-$root/build}/bin/mirage-opt"
budget="${1:-120}"
shift || true
limits=("${@:-5 6 7 8 9 10 11}")
read -r -a limits <<< "${limits[*]}"
program="$(mktemp --suffix=.mlir)"
trap 'rm -f "$program"' EXIT
sed -n '/func.func @rmsnorm_linear_bs1(/,/^}/p' "$root/examples/rmsnorm_linear.mlir" > "$program"

run() {  # block-ops pruning -> "seconds|complete|best"
  local remark
  remark="$("$opt" "$program" -o /dev/null --mlir-print-op-on-diagnostic=false \
    --mirage-superoptimize="max-block-ops=$1 pruning=$2 time-budget=$budget progress=0" 2>&1 |
    grep 'remark:' || true)"
  local seconds complete best
  seconds="$(sed -n 's/.*searched in \([0-9.]*\) s.*/\1/p' <<< "$remark")"
  if grep -q 'block graphs was reached' <<< "$remark"; then
    complete="stopped at the block-graph memory limit after $seconds s"
  elif grep -q 'incomplete' <<< "$remark"; then
    complete="> $budget s (budget)"
  elif [[ -z "$seconds" ]]; then
    complete="failed"
  else
    complete="$seconds s"
  fi
  best="$(sed -n 's/.*chose #[0-9]*: \([^;]*\);.*/\1/p' <<< "$remark")"
  echo "$complete|${best:-kept the program}"
}

echo "| max block ops | with pruning | best found | without pruning | best found |"
echo "| --- | --- | --- | --- | --- |"
for ops in "${limits[@]}"; do
  IFS='|' read -r with withBest <<< "$(run "$ops" true)"
  if [[ " ${UNPRUNED_LIMITS:-5 6} " == *" $ops "* ]]; then
    IFS='|' read -r without withoutBest <<< "$(run "$ops" false)"
  else
    without="not run (larger space)"; withoutBest="-"
  fi
  echo "| $ops | $with | $withBest | $without | $withoutBest |"
done

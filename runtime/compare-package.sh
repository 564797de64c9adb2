#!/usr/bin/env bash
# Side-by-side runs for one device call, copied to the package root as
# compare.sh:
#
#   ./compare.sh OUTDIR [--budget S] [--replays N] [--sanitize B,B...] ROUND...
#
# A ROUND is NAME[@REPLAYS]:BUNDLE,BUNDLE,... (bundle names under bundles/):
# one mirage-run times them in that order, as a CUDA graph and with
# programmatic dependent launch, REPLAYS replays each (default --replays,
# 50), into OUTDIR/NAME.json and NAME.log; list variants alternately
# (a,b,a,b) so that drift shows. Rounds run in order, each given the time
# left of the budget (S seconds from the start, default 540, under a
# 600-second call limit); a round with no time left is skipped. With
# --sanitize, the bundles named first run once (untimed) under
# compute-sanitizer's memcheck, racecheck and synccheck (45 s each).
#
# OUTDIR/times.txt logs each step's exit status and when it ended, then the
# GPU and driver. Files over 2 MB (output dumps) are deleted and the rest
# packed into OUTDIR/res.tgz, the one file left, so that the results come
# back whole through a device call's size limits. $MIRAGE_RUN names a
# mirage-run to use instead of building the runtime (as run.sh does).
set -uo pipefail

usage() {
  echo "usage: compare.sh OUTDIR [--budget S] [--replays N] [--sanitize B,B...] NAME[@REPLAYS]:BUNDLE,... ..." >&2
  exit 2
}
[ $# -ge 1 ] || usage
outdir=$1
shift
budget=540 replays=50 sanitize=
rounds=()
while [ $# -gt 0 ]; do
  case "$1" in
    --budget) budget=${2:?}; shift 2 ;;
    --replays) replays=${2:?}; shift 2 ;;
    --sanitize) sanitize=${2:?}; shift 2 ;;
    --*) usage ;;
    *:*) rounds+=("$1"); shift ;;
    *) usage ;;
  esac
done
[ ${#rounds[@]} -gt 0 ] || usage
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
cd "$(dirname "${BASH_SOURCE[0]}")" || exit 2
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
log() { echo "$*" >> "$outdir/times.txt"; }

# Every bundle a round or the sanitizers name must exist: a typo would
# otherwise cost the call.
check_bundles() {
  local name
  for name in "$@"; do
    if [ ! -f "bundles/$name/manifest.json" ]; then
      echo "compare.sh: no bundle bundles/$name" >&2
      exit 2
    fi
  done
}
for round in "${rounds[@]}"; do
  IFS=, read -ra names <<< "${round#*:}"
  check_bundles "${names[@]}"
done
IFS=, read -ra sanitized <<< "$sanitize"
check_bundles "${sanitized[@]}"

mirage_run=${MIRAGE_RUN:-}
if [ -z "$mirage_run" ]; then
  build=/tmp/mirage-runtime-build
  { cmake -S runtime -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C "$build"; } > "$outdir/build.log" 2>&1
  mirage_run=$(find "$build" -type f -name mirage-run -perm -u+x | head -n 1)
fi
if [ -z "$mirage_run" ]; then
  log "build failed at $(elapsed) s (build.log)"
else
  log "build at $(elapsed) s"
  # Correctness first: the sanitizers, short, before the rounds use up the
  # budget.
  if [ ${#sanitized[@]} -gt 0 ]; then
    for tool in memcheck racecheck synccheck; do
      timeout 45 compute-sanitizer --tool "$tool" --print-limit 20 \
        "$mirage_run" --no-time --deadline-ms 20000 "${sanitized[@]/#/bundles/}" \
        --json /dev/null > "$outdir/$tool.log" 2>&1
      log "$tool rc=$? at $(elapsed) s"
    done
  fi
  for round in "${rounds[@]}"; do
    head=${round%%:*}
    name=${head%@*}
    count=$replays
    [ "$head" != "$name" ] && count=${head#*@}
    IFS=, read -ra names <<< "${round#*:}"
    left=$(( budget - $(elapsed) ))
    if [ "$left" -le 0 ]; then
      log "$name skipped: no time left"
      continue
    fi
    timeout "$left" "$mirage_run" "${names[@]/#/bundles/}" --modes graph,pdl \
      --replays "$count" --json "$outdir/$name.json" > "$outdir/$name.log" 2>&1
    log "$name rc=$? at $(elapsed) s"
  done
fi
nvidia-smi --query-gpu=name,driver_version --format=csv >> "$outdir/times.txt" 2>&1 ||
  log "no nvidia-smi"
cd "$outdir" || exit 2
find . -type f -size +2M -delete
tar -czf /tmp/compare-results.tgz --exclude=./res.tgz .
find . -mindepth 1 -delete
mv /tmp/compare-results.tgz res.tgz

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
# (a,b,a,b) so that drift shows. The budget, S seconds from the script's
# start (default 540, under a 600-second call limit; unpacking the package
# before is not counted), bounds every step: the runtime's build, then,
# with --sanitize, one untimed run of the bundles named under
# compute-sanitizer's memcheck, racecheck and synccheck (45 s each at
# most), then the rounds in order, each given the time left; a step with
# no time left is skipped.
#
# OUTDIR/times.txt logs each step's exit status and when it ended, then the
# GPU and driver. OUTDIR must be empty or new: files over 2 MB (output
# dumps) are deleted and the rest packed into OUTDIR/res.tgz, the one file
# left, so that the results come back whole through a device call's size
# limits. $MIRAGE_RUN names a mirage-run to use instead of building the
# runtime (as run.sh does). The exit status is nonzero when a step failed
# or was skipped.
set -uo pipefail

usage() {
  echo "usage: compare.sh OUTDIR [--budget S] [--replays N] [--sanitize B,B...] NAME[@REPLAYS]:BUNDLE,... ..." >&2
  exit 2
}
number() {
  [[ $1 =~ ^[0-9]+$ ]] || { echo "compare.sh: $2 must be a number of ${3}, got '$1'" >&2; exit 2; }
}
[ $# -ge 1 ] || usage
outdir=$1
shift
budget=540 replays=50 sanitize=
rounds=()
while [ $# -gt 0 ]; do
  case "$1" in
    --budget) [ $# -ge 2 ] || usage; number "$2" --budget seconds; budget=$2; shift 2 ;;
    --replays) [ $# -ge 2 ] || usage; number "$2" --replays replays; replays=$2; shift 2 ;;
    --sanitize) [ $# -ge 2 ] || usage; sanitize=$2; shift 2 ;;
    -*) usage ;;
    *:*) rounds+=("$1"); shift ;;
    *) usage ;;
  esac
done
[ ${#rounds[@]} -gt 0 ] || usage
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
left() { echo $(( budget - $(elapsed) )); }
package=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P) || exit 2

# Every round and bundle name is checked first: a typo would otherwise cost
# the call.
check_bundles() {
  local name
  for name in "$@"; do
    if [ ! -f "$package/bundles/$name/manifest.json" ]; then
      echo "compare.sh: no bundle bundles/$name" >&2
      exit 2
    fi
  done
}
for round in "${rounds[@]}"; do
  head=${round%%:*}
  name=${head%@*}
  if [[ ! $name =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]*$ ]]; then
    echo "compare.sh: a round's name is letters, digits, '_', '.' and '-', got '$name'" >&2
    exit 2
  fi
  [ "$head" = "$name" ] || number "${head#*@}" "round $name's @REPLAYS" replays
  IFS=, read -ra names <<< "${round#*:}"
  [ ${#names[@]} -gt 0 ] || { echo "compare.sh: round $name lists no bundle" >&2; exit 2; }
  check_bundles "${names[@]}"
done
IFS=, read -ra sanitized <<< "$sanitize"
check_bundles "${sanitized[@]}"

# OUTDIR is emptied after packing: it must be a folder of its own, never
# the package or a folder holding it.
mkdir -p -- "$outdir" || exit 2
outdir=$(cd -P -- "$outdir" && pwd -P) || exit 2
case "$package/" in
  "$outdir"/*) echo "compare.sh: OUTDIR $outdir holds the package" >&2; exit 2 ;;
esac
if [ -n "$(ls -A -- "$outdir")" ]; then
  echo "compare.sh: OUTDIR $outdir is not empty" >&2
  exit 2
fi
cd "$package" || exit 2
log() { echo "$*" >> "$outdir/times.txt"; }
status=0
# Runs a step with at most `limit` seconds and the time left, logging it.
step() {
  local name=$1 limit=$2
  shift 2
  local time
  time=$(left)
  [ "$limit" -gt 0 ] && [ "$limit" -lt "$time" ] && time=$limit
  if [ "$time" -le 0 ]; then
    log "$name skipped: no time left"
    status=1
    return 1
  fi
  timeout --kill-after=5 "$time" "$@"
  local rc=$?
  log "$name rc=$rc at $(elapsed) s"
  [ $rc -eq 0 ] || status=1
  return $rc
}

mirage_run=${MIRAGE_RUN:-}
if [ -z "$mirage_run" ]; then
  build=/tmp/mirage-runtime-build
  # A build of another package's runtime would make cmake refuse this one.
  if [ -f "$build/CMakeCache.txt" ] &&
     ! grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$package/runtime" "$build/CMakeCache.txt"; then
    rm -rf "$build"
  fi
  if step build 0 bash -c "{ cmake -S runtime -B '$build' -G Ninja \
        -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF &&
        ninja -C '$build'; } > '$outdir/build.log' 2>&1"; then
    mirage_run=$(find "$build" -type f -name mirage-run -perm -u+x | head -n 1)
  fi
fi
if [ -n "$mirage_run" ]; then
  # Correctness first: the sanitizers, short, before the rounds.
  if [ ${#sanitized[@]} -gt 0 ]; then
    for tool in memcheck racecheck synccheck; do
      step "$tool" 45 compute-sanitizer --tool "$tool" --print-limit 20 \
        "$mirage_run" --no-time --deadline-ms 20000 "${sanitized[@]/#/bundles/}" \
        --json /dev/null > "$outdir/$tool.log" 2>&1
    done
  fi
  for round in "${rounds[@]}"; do
    head=${round%%:*}
    name=${head%@*}
    count=$replays
    [ "$head" != "$name" ] && count=${head#*@}
    IFS=, read -ra names <<< "${round#*:}"
    step "$name" 0 "$mirage_run" "${names[@]/#/bundles/}" --modes graph,pdl \
      --replays "$count" --json "$outdir/$name.json" > "$outdir/$name.log" 2>&1
  done
else
  log "no mirage-run: nothing ran"
  status=1
fi
nvidia-smi --query-gpu=name,driver_version --format=csv >> "$outdir/times.txt" 2>&1 ||
  log "no nvidia-smi"

# Pack, then empty OUTDIR but for the archive, only once it is written.
cd "$outdir" && [ "$(pwd -P)" = "$outdir" ] || exit 2
find . -type f -size +2M -delete
archive=$(mktemp /tmp/compare-results.XXXXXX) || exit 2
if tar -czf "$archive" . ; then
  find . -mindepth 1 -delete
  mv "$archive" res.tgz || status=1
else
  echo "compare.sh: packing the results failed; they stay in $outdir" >&2
  rm -f "$archive"
  status=1
fi
exit $status

#!/usr/bin/env bash
# Runs every bundle of a GPU test package once (no timing) under
# compute-sanitizer's memcheck, racecheck and synccheck, after run.sh built
# mirage-run. Copied to the package root as sanitize.sh:
#
#   ./sanitize.sh [OUTDIR [BUNDLE...]]
#
# logs: OUTDIR/{memcheck,racecheck,synccheck}.log; the bundles default to
# all of bundles/ (name others to leave out ones too large to run under the
# tools in reasonable time, such as a 36-layer decode step).
#
# Prints one line per tool with the error summary; exits nonzero if either
# tool reports an error. Mega-kernels run many times slower under the tools,
# so their waits get a deadline of a minute instead of the manifest's.
set -uo pipefail
outdir=${1:-${OUT:-./results}}
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
shift || true
cd "$(dirname "${BASH_SOURCE[0]}")"
if [ $# -gt 0 ]; then bundles=("$@"); else bundles=(bundles/*); fi
mirage_run=$(find /tmp/mirage-runtime-build -type f -name mirage-run -perm -u+x | head -n 1)
if [ -z "$mirage_run" ]; then
  echo "sanitize.sh: run ./run.sh first (it builds mirage-run)" >&2
  exit 2
fi
status=0
for tool in memcheck racecheck synccheck; do
  compute-sanitizer --tool "$tool" --target-processes all --print-limit 20 \
    "$mirage_run" --no-time --deadline-ms 60000 "${bundles[@]}" --json /dev/null \
    >"$outdir/$tool.log" 2>&1
  summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$outdir/$tool.log" |
            sort | uniq -c | tr -s ' ')
  echo "$tool: ${summary:-no summary (see $tool.log)}"
  grep -qE "(ERROR|RACECHECK) SUMMARY: [1-9]" "$outdir/$tool.log" && status=1
done
exit $status

#!/usr/bin/env bash
# Profiles one kernel of each named bundle with Nsight Compute (after run.sh
# built mirage-run). Copied to the package root as profile.sh:
#
#   ./profile.sh OUTDIR BUNDLE...
#
# Writes OUTDIR/<bundle>.ncu.txt (speed of light, warp states, occupancy,
# memory workload) and prints the lines that matter most.
set -uo pipefail
outdir=$1
shift
mkdir -p "$outdir"
cd "$(dirname "${BASH_SOURCE[0]}")"
mirage_run=$(find /tmp/mirage-runtime-build -type f -name mirage-run -perm -u+x | head -n 1)
for bundle in "$@"; do
  ncu --target-processes all --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section Occupancy \
    --section MemoryWorkloadAnalysis --section SchedulerStats \
    "$mirage_run" --no-time "bundles/$bundle" --json /dev/null \
    >"$outdir/$bundle.ncu.txt" 2>&1
  echo "== $bundle"
  grep -E "Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Warp Cycles Per Issued|Stall|Issued Warp|No Eligible|Registers Per|Block Limit" \
    "$outdir/$bundle.ncu.txt" | head -30
done

#!/usr/bin/env bash
# Vanilla's q, k and v projections side by side in the mega-kernel: each
# planned for a third of the workers (32 tasks of 128 columns, as built),
# for two thirds (_share2: 64 tasks of 64 columns) or for all of them
# (_share3: 128 tasks of 32 columns); three alternating rounds, then the
# variants' outputs against the built one's.
# Run from inside the package: call-e.sh OUTDIR.
set -u
out="${1:?usage: call-e.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
build=/tmp/mirage-runtime-build
{ cmake -S runtime -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIRAGE_RUNTIME_TESTS=OFF && ninja -C $build; } > $out/build.log 2>&1
mr=$(find $build -type f -name mirage-run -perm -u+x | head -1)
B=bundles
v="$B/vanilla_megakernel $B/vanilla_megakernel_share2 $B/vanilla_megakernel_share3"
r="$B/vanilla_megakernel_share3 $B/vanilla_megakernel_share2 $B/vanilla_megakernel"
$mr $v $r $v --modes graph --replays 50 --json $out/share.json > $out/share.log 2>&1
echo "share rc=$?" >> $out/times.txt
$mr $v --no-time --dump-outputs /tmp/outputs > $out/outputs.log 2>&1
python3 - /tmp/outputs > $out/compare.txt 2>&1 <<'PY'
import sys
sys.path.insert(0, "runtime/python")
import mirage_report as r
d = sys.argv[1]
base = r.read_dumped_outputs(d, {"bundle": "bundles/vanilla_megakernel"})
for other in ["vanilla_megakernel_share2", "vanilla_megakernel_share3"]:
    print(other, "against vanilla_megakernel: rel L2",
          r.disagreement(r.read_dumped_outputs(d, {"bundle": "bundles/" + other}), base))
PY
nvidia-smi --query-gpu=name,driver_version --format=csv >> $out/times.txt

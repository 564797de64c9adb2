#!/usr/bin/env bash
# Run in a GPU package after go.sh: go2.sh OUTDIR. Every part of
# torch-parts/ through the parts runner, ours only, twice.
set -u
out="${1:?usage: go2.sh OUTDIR}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
build=/tmp/mirage-runtime-build
export MIRAGE_RUNTIME_LIB=$build/lib/libmirage_runtime_c.so PYTHONUNBUFFERED=1
nvidia-smi -L
for i in 1 2; do
  python3 runtime/python/run_torch_parts.py torch-parts --no-compile --json "$out/parts$i.json" 2>&1 | python3 -c "
import sys, json
for line in sys.stdin:
    try: e = json.loads(line)
    except Exception: print(line.rstrip()); continue
    print(e['part'], round(e.get('ours_us', -1), 2), round(e.get('eager_us', -1), 2), e['pass'])
"
done

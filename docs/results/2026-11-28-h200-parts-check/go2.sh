#!/usr/bin/env bash
set -u
cd "$(dirname "$0")"
build=/tmp/mirage-runtime-build
export MIRAGE_RUNTIME_LIB=$build/lib/libmirage_runtime_c.so PYTHONUNBUFFERED=1
nvidia-smi -L
# The whole parts list in the runner's order, ours only, twice.
for i in 1 2; do
  python3 runtime/python/run_torch_parts.py allparts --no-compile --json $OUT/parts$i.json 2>&1 | python3 -c "
import sys, json
for line in sys.stdin:
    try: e = json.loads(line)
    except Exception: print(line.rstrip()); continue
    print(e['part'], round(e.get('ours_us', -1), 2), round(e.get('eager_us', -1), 2), e['pass'])
"
done

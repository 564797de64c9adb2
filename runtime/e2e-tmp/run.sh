#!/bin/bash
# End-to-end check of the runtime on a GPU machine (temporary).
nvidia-smi -L; cmake --version | head -1; g++ --version | head -1; ls -d /usr/lib/x86_64-linux-gnu/cmake/GTest /usr/lib/cmake/GTest 2>&1
cmake -S runtime -B /tmp/build -G Ninja -DCMAKE_CXX_COMPILER=g++ > /tmp/cmake.log 2>&1 || { cat /tmp/cmake.log; exit 1; }
grep -i "cuda\|gtest" /tmp/cmake.log
ninja -C /tmp/build > /tmp/ninja.log 2>&1 || { cat /tmp/ninja.log; exit 1; }
grep -i warning /tmp/ninja.log
ls /tmp/build
[ -x /tmp/build/MirageRuntimeTests ] && /tmp/build/MirageRuntimeTests | tail -1
cd runtime/e2e-tmp
nvcc -ptx -arch=sm_90a kernels.cu -o /tmp/k.ptx && nvcc -cubin -arch=sm_90a kernels.cu -o /tmp/k.cubin || exit 1
python3 make_bundles.py /tmp/e2e /tmp/k.ptx /tmp/k.cubin
R=/tmp/build/mirage-run
B=/tmp/e2e
echo "=== all"
$R $B/axpy $B/fault $B/axpy_ptx $B/too_much_shared $B/bad_block $B/half_written $B/bad_manifest /nonexistent/ --json $OUT/all.json; echo "exit $?"
grep -c "\"device\"" $OUT/all.json
echo "=== seed 99"
$R --seed 99 --no-time $B/axpy | grep -A2 '"check"'; echo "exit ${PIPESTATUS[0]}"
echo "=== seed 5"
$R --seed=5 --no-time $B/axpy > /dev/null; echo "exit $?"
echo "=== inputs + dump"
$R --inputs $B/inputs --dump-outputs /tmp/dump --no-time $B/axpy > /dev/null; echo "exit $?"
ls -la /tmp/dump/axpy
python3 -c "
import numpy as np
o=np.fromfile('/tmp/dump/axpy/output0.bin',dtype=np.float32).astype(np.float64)
o2=np.fromfile('/tmp/dump/axpy/output1.bin',dtype=np.float32).astype(np.float64)
r=np.fromfile('$B/ref.bin',dtype=np.float64)
print('dump rel_l2', np.linalg.norm(o-r)/np.linalg.norm(r), 'same', (o==o2).all())"
echo "=== no-check, many replays"
$R --no-check --replays 200 --warmup 10 $B/axpy $B/half_written | python3 -c "import json,sys; d=json.load(sys.stdin); print(d['device']); [print(r['name'], r['ok'], r.get('timing')) for r in d['results']]"
echo "=== usage errors"
$R --bogus; echo "exit $?"
$R --replays 0 $B/axpy; echo "exit $?"
$R --device 7 $B/axpy > /dev/null; echo "exit $?"
echo "=== memcheck"
compute-sanitizer --tool memcheck $R --no-time $B/axpy $B/half_written 2>&1 | tail -4

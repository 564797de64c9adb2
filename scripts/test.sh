#!/usr/bin/env bash
# Installs the dependencies, builds everything the tests need and runs the
# whole suite: lit (IR tests and the GoogleTest unit tests) and pytest (the
# Python package), then a bounded fuzz run: 8 s of mutations per pipeline of
# the fuzz harness after every seed once (scripts/fuzz.sh, counted as one
# test). Ends with one line "N passed, N failed".
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MIRAGE_BUILD_DIR:-$root/build}"

"$root/scripts/install-deps.sh"
# Every target (the runtime's mirage-run and mirage-check-bundle too), so that
# nothing breaks unseen, and the ones outside "all".
"$root/scripts/build.sh" all mirage-doc mirage-python mirage-fuzz MirageUnitTests

lit_results="$build/test-results.json"
pytest_results="$build/pytest-results.xml"
status=0
/usr/lib/llvm-22/bin/lit -sv --output "$lit_results" \
  "$build/test" "$build/test/Unit" || status=$?
# pytest in the environment of scripts/python-env.sh (PyTorch from PyPI).
python="$("$root/scripts/python-env.sh")"
# MIRAGE_TEST_WHEEL: also build the wheel (from $build) and install it into a
# fresh virtual environment (python/tests/test_wheel.py).
MIRAGE_BUILD_DIR="$build" MIRAGE_TEST_WHEEL=1 "$python" -m pytest -q \
  --junitxml="$pytest_results" "$root/python/tests" \
  "$root/runtime/python/tests" || status=$?
# Every seed, then 8 s of mutations, through every pipeline in the fuzz
# harness (its print round trip and verified results included), with a fixed
# seed; scripts/fuzz.sh with its instrumented build is the real fuzzing.
fuzz_failed=0
"$root/scripts/fuzz.sh" --build "$build" --seed 1 --seconds 8 \
  --out "$build/fuzz-smoke" ||
  { fuzz_failed=1; status=1; }

/usr/bin/python3 - "$lit_results" "$pytest_results" "$fuzz_failed" <<'PY'
import collections, json, sys, xml.etree.ElementTree as ET
codes = collections.Counter(t["code"] for t in json.load(open(sys.argv[1]))["tests"])
passed = codes["PASS"] + codes["XFAIL"]
failed = sum(codes[c] for c in ("FAIL", "XPASS", "UNRESOLVED", "TIMEOUT"))
skipped = codes["UNSUPPORTED"]
for suite in ET.parse(sys.argv[2]).getroot().iter("testsuite"):
    total, errors = int(suite.get("tests")), int(suite.get("errors"))
    bad, skips = int(suite.get("failures")) + errors, int(suite.get("skipped"))
    passed += total - bad - skips
    failed += bad
    skipped += skips
passed += 1 - int(sys.argv[3])
failed += int(sys.argv[3])
if skipped:
    print(f"{skipped} skipped or unsupported (a tool such as ptxas is missing)")
print(f"{passed} passed, {failed} failed")
PY
exit $status

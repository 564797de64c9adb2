#!/usr/bin/env bash
# Installs the dependencies, builds everything the tests need and runs the
# whole suite (lit IR tests and the GoogleTest unit tests, through lit). Ends
# with one line "N passed, N failed".
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MIRAGE_BUILD_DIR:-$root/build}"

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" mirage-opt MirageUnitTests

results="$build/test-results.json"
status=0
/usr/lib/llvm-22/bin/lit -sv --output "$results" \
  "$build/test" "$build/test/Unit" || status=$?

python3 - "$results" <<'PY'
import collections, json, sys
codes = collections.Counter(t["code"] for t in json.load(open(sys.argv[1]))["tests"])
passed = codes["PASS"] + codes["XFAIL"]
failed = sum(codes[c] for c in ("FAIL", "XPASS", "UNRESOLVED", "TIMEOUT"))
if codes["UNSUPPORTED"]:
    print(f"{codes['UNSUPPORTED']} unsupported (a tool such as ptxas is missing)")
print(f"{passed} passed, {failed} failed")
PY
exit $status

#!/usr/bin/env bash
# Runs the whole lit suite (IR tests and GoogleTest unit tests) on a build of
# the project with AddressSanitizer and UndefinedBehaviorSanitizer, in
# ${MIRAGE_BUILD_DIR:-build-san} (configured by scripts/build.sh with
# MIRAGE_SANITIZE=1; a cold build takes about 40 minutes on 2 cores). Any
# sanitizer report fails the test that triggered it. Extra arguments go to lit.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MIRAGE_BUILD_DIR:-$root/build-san}"

MIRAGE_BUILD_DIR="$build" MIRAGE_SANITIZE=1 "$root/scripts/build.sh" \
  mirage-opt mirage-bundle mirage-bench-interpreter mirage-capi-test \
  mirage-check-bundle MirageUnitTests mirage-doc mirage-fuzz

# allow_user_poisoning=0: Debian's LLVM is not built with ASan, but inline
# code of its headers instantiated in sanitized files poisons allocator
# memory (BumpPtrAllocator's redzones), and where the two meet ASan reports
# use-after-poison on correct code.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allow_user_poisoning=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# The documented commands run several times slower under the sanitizers.
export MIRAGE_DOC_COMMAND_TIMEOUT="${MIRAGE_DOC_COMMAND_TIMEOUT:-1800}"
/usr/lib/llvm-22/bin/lit -sv "$@" "$build/test" "$build/test/Unit"

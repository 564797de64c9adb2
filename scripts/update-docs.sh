#!/usr/bin/env bash
# Regenerates the op and pass reference in docs/reference from ODS.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MIRAGE_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh" mirage-doc
for dialect in Kernel Block Thread Task; do
  cp "$build/docs/Dialects/$dialect.md" "$root/docs/reference/$dialect.md"
done
cp "$build/docs/Passes/Block.md" "$root/docs/reference/BlockPasses.md"
cp "$build/docs/Passes/Verify.md" "$root/docs/reference/VerifyPasses.md"
echo "update-docs: docs/reference regenerated"

#!/usr/bin/env bash
# Regenerates the op and pass reference in docs/reference from ODS.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MIRAGE_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh" mirage-doc
for dialect in Kernel Block Thread Task; do
  cp "$build/docs/Dialects/$dialect.md" "$root/docs/reference/$dialect.md"
done
for passes in Block Kernel Verify Conversion Frontend Search Task TileEqsat; do
  cp "$build/docs/Passes/$passes.md" "$root/docs/reference/${passes}Passes.md"
done
echo "update-docs: docs/reference regenerated"

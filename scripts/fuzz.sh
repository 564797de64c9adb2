#!/usr/bin/env bash
# Fuzzes the compiler with tools/mirage-fuzz: one libFuzzer run per pipeline
# below, seeded with every MLIR file of test/ and examples/ (split at
# "// -----"). Findings (crash-*, timeout-*, oom-*, leak-*) are written under
# OUT/<pipeline>/ and make the script fail; each one should become a lit test.
#
#   scripts/fuzz.sh [--seconds N] [--build DIR] [--out DIR] [--only NAME]
#                   [--seed S] [--replay]
#
# --seconds: time per pipeline (default 60). --build: the build with
# bin/mirage-fuzz (default build-san, configured with ASan, UBSan and
# coverage instrumentation when missing; the test command passes its own
# uninstrumented build for a short smoke run). --only: one pipeline by name.
# --seed: libFuzzer's seed (default: random); the test command fixes it so
# that its short run does the same work each time. --replay: run every seed
# once through every pipeline, without mutations (what the test command
# does, see docs/Fuzzing.md).
# docs/Fuzzing.md has more.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds=60 build="$root/build-san" out="" only="" seed=0 replay=0
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --replay) replay=1; shift ;;
    *) echo "fuzz.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
out="${out:-$build/fuzz}"

MIRAGE_BUILD_DIR="$build" MIRAGE_SANITIZE=1 "$root/scripts/build.sh" mirage-fuzz

# name|pass list|seed directories (under the source tree). The interpreting
# passes get a lower max-elements, so that large seeds and mutants test the
# refusal rather than spend the time limit computing.
pipelines=(
  "parse||test examples"
  "fuse|kn-fuse,kn-default-block-graphs|test/Dialect/Kernel test/Conversion examples"
  "lower|kn-fuse,kn-default-block-graphs,convert-kn-to-gpu{dependent-launch=true}|test/Conversion test/Target"
  "verify|mirage-verify-equivalence{threads=1 max-elements=1000000}|test/Dialect test/Verify"
  "task-graph|mirage-to-task-graph|test/TaskGraph test/Dialect/Task"
  "megakernel|mirage-to-task-graph,convert-tg-to-gpu|test/TaskGraph test/Conversion"
  "eqsat|mirage-tile-eqsat{max-elements=1000000 baseline=program}|test/TileEqsat test/Dialect/Kernel"
  "search|mirage-superoptimize{threads=1 time-budget=2 max-block-ops=3 progress=0 max-elements=1000000}|test/Search"
  "frontends|convert-linalg-to-kn,convert-tosa-to-kn --frontend-dialects|test/Conversion/LinalgToKernel test/Conversion/TosaToKernel test/Conversion/Frontend"
)

split_seeds() { # split_seeds DEST DIR...: one seed per "// -----" section
  /usr/bin/python3 - "$root" "$@" <<'PY'
import pathlib, re, sys
root, dest, dirs = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3:]
dest.mkdir(parents=True, exist_ok=True)
count = 0
for d in dirs:
    for path in sorted((root / d).rglob("*.mlir")):
        text = path.read_text(errors="replace")
        for i, part in enumerate(re.split(r"^// -----\s*$", text, flags=re.M)):
            # RUN/CHECK lines only make inputs longer.
            body = "\n".join(l for l in part.splitlines()
                             if not l.lstrip().startswith("//"))
            if body.strip() and len(body) <= 16384:
                (dest / f"{path.stem}-{i}.mlir").write_text(body + "\n")
                count += 1
print(f"fuzz.sh: {count} seeds from {' '.join(dirs)}")
PY
}

status=0
for entry in "${pipelines[@]}"; do
  IFS="|" read -r name passes dirs <<<"$entry"
  flags=""
  if [[ "$passes" == *" --frontend-dialects" ]]; then
    passes="${passes% --frontend-dialects}" flags="--frontend-dialects"
  fi
  [ -n "$only" ] && [ "$only" != "$name" ] && continue
  work="$out/$name"
  rm -rf "$work/seeds"
  mkdir -p "$work/corpus" "$work/findings"
  # shellcheck disable=SC2086
  split_seeds "$work/seeds" $dirs
  what="for ${seconds}s"
  [ "$replay" = 1 ] && what="replaying the seeds"
  echo "fuzz.sh: $name (${passes:-parse, verify and print only}) $what"
  limit=(-max_total_time="$seconds")
  [ "$replay" = 1 ] && limit=(-runs=0)
  # shellcheck disable=SC2086
  "$build/bin/mirage-fuzz" --pipeline="$passes" $flags -seed="$seed" \
    "${limit[@]}" \
    -timeout=30 -rss_limit_mb=4096 -max_len=16384 -print_final_stats=1 \
    -artifact_prefix="$work/findings/" "$work/corpus" "$work/seeds" \
    >"$work/log.txt" 2>&1 || true
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$work/log.txt" |
    sed "s/^/fuzz.sh:   /" || true
  # libFuzzer also keeps slow-unit-* there (over 10 s): slow, not a finding.
  findings=$(find "$work/findings" -type f -not -name 'slow-unit-*' | wc -l)
  if [ "$findings" -gt 0 ]; then
    echo "fuzz.sh: $name: $findings finding(s) in $work/findings (log: $work/log.txt)"
    status=1
  fi
done
exit $status

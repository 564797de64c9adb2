#!/usr/bin/env python3
"""Runs the commands the documentation shows and checks that they print
what it says they print.

In README.md and docs/*.md, a line `$ mirage-opt ...` (or `$ build/bin/...`)
in a fenced code block is a command; the lines after it, up to the next
command or the end of the block, are its documented output. The command
runs from the repository root with the build's tools (`-o FILE` other than
/dev/null writes to a temporary file instead). Its output matches when each
documented message appears in the output, in order: a message is a line
that does not start with a space together with the indented lines after it
(wrapped text), compared with whitespace collapsed; `...` stands for
anything, and so do times in seconds and numbers in scientific notation
(they vary from run to run); every other number must be exact. A block preceded by `<!-- doc-check: skip (why) -->` is not
run (slow commands); the summary counts it.

    check-doc-commands.py BUILD_DIR [FILE.md ...]

Exit status 1 when a command fails to run as documented or its output does
not match; each failure shows the command, the expected and the actual text.
"""

import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
TOOLS = ("mirage-opt", "mirage-bundle")


def commands(path):
    """(line number, command, expected output, skip reason) per command."""
    lines = path.read_text().splitlines()
    in_block, skip, pending = False, None, None
    result = []
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            if in_block and pending:
                result.append(pending)
            in_block, pending = not in_block, None
            if not in_block:
                skip = None
            continue
        if not in_block:
            match = re.match(r"<!-- doc-check: skip \((.*)\) -->", line.strip())
            if match:
                skip = match.group(1)
            elif line.strip():
                skip = None
            continue
        if line.startswith("$ "):
            if pending:
                result.append(pending)
            pending = [number, line[2:], [], skip]
        elif pending:
            if pending[1].endswith("\\") and not pending[2]:
                pending[1] = pending[1][:-1] + " " + line.strip()
            else:
                pending[2].append(line)
    return [tuple(p) for p in result]


def normalize(text):
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"[-+]?\d+\.\d+[eE][-+]?\d+", "#e", text)
    return re.sub(r"\d+(\.\d+)? ?s\b", "# s", text)


def messages(lines):
    """Lines starting without a space, each with its indented followers."""
    grouped = []
    for line in lines:
        if not line.strip():
            continue
        if grouped and line.startswith(" ") and not grouped[-1][0].startswith(" "):
            grouped[-1].append(line)
        elif grouped and line.startswith(" ") and grouped[-1][0].startswith(" "):
            grouped[-1].append(line)
        else:
            grouped.append([line])
    return [" ".join(group) for group in grouped]


def matches(expected, actual):
    position, actual = 0, normalize(actual)
    for message in messages(expected):
        for fragment in normalize(message).split("..."):
            fragment = fragment.strip()
            if not fragment:
                continue
            found = actual.find(fragment, position)
            if found < 0:
                return False
            position = found + len(fragment)
    return True


# Seconds per command: a sanitized build is several times slower (the
# equivalence check of examples/gqa.mlir takes about 8 minutes under ASan on
# 2 cores), so scripts/sanitize-lit.sh raises it.
COMMAND_TIMEOUT_S = float(os.environ.get("MIRAGE_DOC_COMMAND_TIMEOUT", "300"))


def run_documented_command(command, build):
    words = shlex.split(command)
    tool = pathlib.Path(words[0]).name
    if tool not in TOOLS:
        return None, f"not a Mirage tool: {words[0]}"
    words[0] = str(build / "bin" / tool)
    with tempfile.TemporaryDirectory() as scratch:
        for i, word in enumerate(words[:-1]):
            if word == "-o" and words[i + 1] != "/dev/null":
                words[i + 1] = str(pathlib.Path(scratch) / pathlib.Path(words[i + 1]).name)
        done = subprocess.run(words, cwd=ROOT, capture_output=True, text=True,
                              timeout=COMMAND_TIMEOUT_S)
    return done, None


def main():
    build = pathlib.Path(sys.argv[1]).resolve()
    files = [pathlib.Path(f).resolve() for f in sys.argv[2:]] or \
        [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    ran = skipped = failed = 0
    for path in files:
        for number, command, expected, skip in commands(path):
            where = f"{path.relative_to(ROOT)}:{number}"
            if skip:
                skipped += 1
                print(f"SKIP {where}: {skip}")
                continue
            ran += 1
            done, error = run_documented_command(command, build)
            if error:
                failed += 1
                print(f"FAIL {where}: {error}")
                continue
            output = done.stdout + done.stderr
            shows_error = any("error:" in line for line in expected)
            if (done.returncode != 0) != shows_error or not matches(expected, output):
                failed += 1
                print(f"FAIL {where}: $ {command}\n  exit status {done.returncode}\n"
                      f"  expected:\n    " + "\n    ".join(expected) +
                      "\n  got:\n    " + "\n    ".join(output.splitlines()[:20]))
            else:
                print(f"PASS {where}")
    print(f"doc commands: {ran} run, {failed} failed, {skipped} skipped")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

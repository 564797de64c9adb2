#!/usr/bin/env python3
"""Verifies what kn-fuse makes of every example against the example itself.

For each function @f of each file, a copy @f_kn_fuse is run through kn-fuse
and kn-default-block-graphs and given kn.reference = @f; the module holding
the originals and the copies goes through mirage-verify-equivalence, whose
verdicts and times are printed. The Qwen3-8B-shaped layer is checked in bf16
too: in f16 its down projection's sum reaches 65546 on inputs in [-1, 1),
past f16's range, which the verifier reports as numerically unstable for
the unfused program's kernels as much as for the fused ones.

Usage: benchmarks/verify-fused-examples.py [build-dir] [files...]
"""

import os
import re
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = sys.argv[1:]
build = os.environ.get("MIRAGE_BUILD_DIR", os.path.join(root, "build"))
if args and os.path.isdir(args[0]):
    build = args.pop(0)
opt = os.path.join(build, "bin", "mirage-opt")
files = args or sorted(
    os.path.join(root, "examples", name)
    for name in os.listdir(os.path.join(root, "examples"))
    if name.endswith(".mlir"))


def fused_copies(text):
    """The functions of `text` renamed @f_kn_fuse, fused, with references."""
    names = re.findall(r"func\.func @(\w+)\(", text)
    renamed = text
    for name in names:
        renamed = re.sub(r"@%s\b" % name, "@%s_kn_fuse" % name, renamed)
    renamed = re.sub(r"attributes \{kn\.reference = @\w+\}", "", renamed)
    out = subprocess.run(
        [opt, "-", "--kn-fuse", "--kn-default-block-graphs"],
        input=renamed, capture_output=True, text=True, check=True).stdout
    body = out.strip().split("\n")[1:-1]  # drop `module {` and `}`
    body = "\n".join(body)
    for name in names:
        body = re.sub(
            r"(func\.func @%s_kn_fuse\([^{]*?)\{\n" % name,
            lambda m, n=name: m.group(1) + "attributes {kn.reference = @%s} {\n" % n,
            body, count=1, flags=re.S)
    return body


def verify(label, text):
    # Only the fused copies name references: the examples' own pairs are
    # benchmarks/verify-examples.sh's.
    originals = re.sub(r"attributes \{kn\.reference = @\w+\}", "", text)
    module = originals + "\n" + fused_copies(text)
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(module)
        path = f.name
    start = time.time()
    result = subprocess.run(
        [opt, path, "--mirage-verify-equivalence",
         "--mlir-print-op-on-diagnostic=false", "-o", os.devnull],
        capture_output=True, text=True)
    os.unlink(path)
    print("== %s (%.1f s)" % (label, time.time() - start))
    for line in result.stderr.splitlines():
        match = re.search(r"(remark|warning|error): (.*)", line)
        if match:
            verdict = match.group(2)
            verdict = re.sub(r"; float64 on .*; ([0-9.]+ s)$", r" ... \1", verdict)
            print("  " + verdict[:160])


for path in files:
    text = open(path).read()
    verify(os.path.basename(path), text)
    if os.path.basename(path) == "qwen3_decode.mlir":
        verify("qwen3_decode.mlir in bf16", text.replace("xf16", "xbf16"))

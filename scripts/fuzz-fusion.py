#!/usr/bin/env python3
"""Differential fuzzing of the default path: random kn programs through
kn-fuse, the equivalence verifier and the GPU lowering.

    scripts/fuzz-fusion.py [--programs N] [--seed S] [--out DIR] [--build DIR]

Each program is a random chain of the operators LLM layers are built from
(elementwise, broadcasts, row reductions, RMSNorm, matmuls with a weight,
splits and concats, per-head statistics through reshapes, transposes) over
small 2-D tensors. For each one:

1. `mirage-opt --kn-fuse` must succeed;
2. the fused function, marked `kn.reference` to the original, must be
   `proven` or `tested` equivalent by `mirage-verify-equivalence`;
3. `mirage-bundle --no-reference --ptxas=none` (which fuses and lowers it to
   PTX) must succeed;
4. the program compiled to a task graph for 2, 4, 16 or 132 workers and
   lowered to a mega-kernel (`mirage-to-task-graph`, `convert-tg-to-gpu`)
   must be proven or tested equivalent in the orders its workers can take.

Any other outcome is a finding: the program, the failing command and its
output go to DIR/<seed>-<index>/ (default fuzz-findings/), and the exit
status is 1. A program the verifier finds numerically unstable (it leaves
its element type's range) or inconclusive (float64 overflows on every
output) is counted and not judged. The last line is
"N programs, N findings, N numerically unstable (not judged)". docs/Fusion.md
("Fuzzing") says how it is run.
"""

import argparse
import pathlib
import random
import re
import shutil
import subprocess
import sys
import tempfile

ROWS = [1, 2, 8, 16]
COLS = [16, 32, 64, 128, 256]
UNARY = ["exp", "silu", "sigmoid", "gelu", "relu", "neg", "square"]
BINARY = ["add", "sub", "mul"]


class Program:
    """A random kn function under construction: values with their shapes."""

    def __init__(self, rng, dtype):
        self.rng, self.dtype = rng, dtype
        self.args, self.lines, self.values = [], [], []
        self.rows = rng.choice(ROWS)
        self.count = 0

    def type(self, shape):
        return f"tensor<{'x'.join(map(str, shape))}x{self.dtype}>"

    def arg(self, shape):
        name = f"%a{len(self.args)}"
        self.args.append((name, shape))
        return name, shape

    def emit(self, text, shape):
        name = f"%v{self.count}"
        self.count += 1
        self.lines.append(f"  {name} = {text}")
        self.values.append((name, shape))
        return name, shape

    def pick(self, want=None):
        """A value (of shape `want` when given), or a new argument."""
        pool = [v for v in self.values if want is None or v[1] == want]
        if pool and self.rng.random() < 0.8:
            return self.rng.choice(pool[-4:])
        return self.arg(want or [self.rows, self.rng.choice(COLS)])

    def step(self):
        rng = self.rng
        x, shape = self.pick()
        if len(shape) != 2:
            return
        rows, cols = shape
        kind = rng.choice(["unary", "unary", "binary", "binary", "scalar",
                           "reduce", "rms_norm", "matmul", "split", "heads",
                           "transpose"])
        t = self.type(shape)
        if kind == "unary":
            op = rng.choice(UNARY)
            self.emit(f"kn.{op} {x} : {t}", shape)
        elif kind == "scalar":
            op = rng.choice(["mul_scalar", "add_scalar"])
            value = rng.choice([0.5, 2.0, -1.0, 0.125, 3.0])
            self.emit(f"kn.{op} {x}, {value:e} : {t}", shape)
        elif kind == "binary":
            op = rng.choice(BINARY)
            form = rng.choice(["same", "row", "column"])
            other_shape = {"same": shape, "row": [cols], "column": [rows, 1]}[form]
            y, _ = self.pick(other_shape)
            self.emit(f"kn.{op} {x}, {y} : {t}, {self.type(other_shape)}", shape)
        elif kind == "reduce":
            op = rng.choice(["reduce_sum", "reduce_max"])
            reduced, _ = self.emit(f"kn.{op} {x} dim 1 : {t}", [rows, 1])
            # Use the row statistic against its row, as norms and softmax do.
            op = rng.choice(["sub", "mul", "add"])
            self.emit(f"kn.{op} {x}, {reduced} : {t}, {self.type([rows, 1])}",
                      shape)
        elif kind == "rms_norm":
            w, _ = self.pick([cols])
            self.emit(f"kn.rms_norm {x} weight {w} {{eps = 1.0e-6 : f64}} : "
                      f"{t}, {self.type([cols])}", shape)
        elif kind == "matmul":
            if cols % 16:
                return
            n = rng.choice([16, 32, 64, 128])
            w, _ = self.arg([cols, n])
            self.emit(f"kn.matmul {x}, {w} : {t}, {self.type([cols, n])}",
                      [rows, n])
        elif kind == "heads":
            self.heads(x, shape)
        elif kind == "transpose":
            # Transposed twice, with an elementwise op between: the result
            # has the original shape and stays usable by row ops.
            swapped = [cols, rows]
            t1, _ = self.emit(f"kn.transpose {x} permutation [1, 0] : {t}",
                              swapped)
            u, _ = self.emit(f"kn.{rng.choice(UNARY)} {t1} : "
                             f"{self.type(swapped)}", swapped)
            self.emit(f"kn.transpose {u} permutation [1, 0] : "
                      f"{self.type(swapped)}", shape)
        elif kind == "split":
            half = cols // 2
            if half < 8 or half % 8:
                return
            first = f"%v{self.count}"
            second = f"%v{self.count + 1}"
            self.count += 2
            self.lines.append(f"  {first}, {second} = kn.split {x} dim 1 sizes "
                              f"[{half}, {half}] : {t}")
            halves = [(first, [rows, half]), (second, [rows, half])]
            self.values += halves
            a, b = halves if rng.random() < 0.5 else halves[::-1]
            a, _ = self.emit(f"kn.{rng.choice(UNARY)} {a[0]} : "
                             f"{self.type([rows, half])}", [rows, half])
            self.emit(f"kn.concat {a}, {b[0]} dim 1 : {self.type([rows, half])}, "
                      f"{self.type([rows, half])}", shape)

    def heads(self, x, shape):
        """Per-head statistics, as attention and QK-norm compute them: the
        row reshaped into heads, reduced per head, applied, reshaped back."""
        rows, cols = shape
        heads = self.rng.choice([h for h in (2, 4, 8) if cols % h == 0 and
                                 cols // h >= 8] or [0])
        if not heads:
            return
        split = [rows, heads, cols // heads]
        h, _ = self.emit(f"kn.reshape {x} : {self.type(shape)} -> "
                         f"{self.type(split)}", split)
        op = self.rng.choice(["reduce_sum", "reduce_max"])
        r, _ = self.emit(f"kn.{op} {h} dim 2 : {self.type(split)}",
                         [rows, heads, 1])
        op = self.rng.choice(["sub", "mul"])
        y, _ = self.emit(f"kn.{op} {h}, {r} : {self.type(split)}, "
                         f"{self.type([rows, heads, 1])}", split)
        self.emit(f"kn.reshape {y} : {self.type(split)} -> {self.type(shape)}",
                  shape)

    def text(self, name, attributes=""):
        # The last value and up to two other values nothing reads, so that
        # little of the program is dead.
        outputs = [self.values[-1]]
        uses = "\n".join(line.split("=", 1)[1] for line in self.lines)
        sinks = [v for v in self.values[:-1]
                 if not re.search(re.escape(v[0]) + r"\b", uses)]
        for value in self.rng.sample(sinks, min(2, len(sinks))):
            outputs.insert(0, value)
        args = ", ".join(f"{n}: {self.type(s)}" for n, s in self.args)
        results = ", ".join(self.type(s) for _, s in outputs)
        header = f"func.func @{name}({args}) -> ({results}){attributes} {{"
        ret = (f"  return {', '.join(n for n, _ in outputs)} : "
               f"{', '.join(self.type(s) for _, s in outputs)}")
        return "\n".join([header] + self.lines + [ret, "}"]) + "\n"


def generate(seed):
    rng = random.Random(seed)
    program = Program(rng, rng.choice(["f16", "f16", "f32"]))
    for _ in range(rng.randint(2, 14)):
        program.step()
    if not program.values:
        program.emit(f"kn.exp {program.arg([program.rows, 64])[0]} : "
                     f"{program.type([program.rows, 64])}", [program.rows, 64])
    return program.text("prog")


def run_tool(command):
    result = subprocess.run(command, capture_output=True, text=True,
                            timeout=600)
    return result.returncode, result.stdout + result.stderr


def as_candidate(fused_module, original):
    """The fused function as @cand with kn.reference = @prog, next to the
    original, for mirage-verify-equivalence."""
    match = re.search(r"func\.func @prog\((.*?)\{\n", fused_module, re.S)
    if not match:
        return None
    start, end = match.span()
    header = fused_module[start:end].replace("@prog(", "@cand(", 1)
    if " attributes {" in header:
        header = header.replace(" attributes {", " attributes {kn.reference = @prog, ", 1)
    else:
        header = header[:-2] + " attributes {kn.reference = @prog} {\n"
    # Both in the printed module, the original first.
    return fused_module[:start] + original + header + fused_module[end:]


UNSTABLE = "numerically unstable"
# Verdicts about the program, not the compiler: it leaves its element
# type's range, or float64 itself overflows on every output element.
NOT_JUDGED = ("warning: numerically unstable", "warning: inconclusive")


def check(program, work, build, workers):
    """None when the program passes, UNSTABLE when the verifier finds it
    leaves its element type's range, else (step, command, output)."""
    opt, bundle = str(build / "bin/mirage-opt"), str(build / "bin/mirage-bundle")
    source = work / "prog.mlir"
    source.write_text(program)
    command = [opt, str(source), "--kn-fuse"]
    status, fused = run_tool(command)
    if status != 0:
        return "kn-fuse", command, fused
    candidate = as_candidate(fused, program)
    if candidate is None:
        return "kn-fuse", command, "no @prog in the output:\n" + fused
    pair = work / "pair.mlir"
    pair.write_text(candidate)
    command = [opt, str(pair), "--mirage-verify-equivalence", "-o", "/dev/null"]
    status, verdict = run_tool(command)
    if any(text in verdict for text in NOT_JUDGED):
        return UNSTABLE
    if status != 0 or not re.search(r"remark: (proven|tested)", verdict):
        return "mirage-verify-equivalence", command, verdict
    command = [bundle, str(source), "-o", str(work / "bundle"), "--no-reference",
               "--ptxas=none"]
    status, output = run_tool(command)
    if status != 0:
        return "mirage-bundle", command, output
    # The same program as a task graph lowered to a mega-kernel, checked in
    # the orders its workers can take.
    command = [opt, str(source), f"--mirage-to-task-graph=workers={workers}",
               "--convert-tg-to-gpu", "--mirage-verify-equivalence",
               "-o", "/dev/null"]
    status, verdict = run_tool(command)
    if any(text in verdict for text in NOT_JUDGED):
        return UNSTABLE
    if status != 0 or not re.search(
            r"remark: (proven|tested).*mega-kernel worker orders", verdict):
        return "mega-kernel", command, verdict
    return None


def main(argv=None):
    root = pathlib.Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="fuzz-findings")
    parser.add_argument("--build", default=str(root / "build"))
    parser.add_argument("--quiet", action="store_true",
                        help="print findings and the summary only")
    options = parser.parse_args(argv)
    build = pathlib.Path(options.build)
    findings = unstable = 0
    with tempfile.TemporaryDirectory() as scratch:
        for index in range(options.programs):
            seed = options.seed * 100003 + index
            program = generate(seed)
            work = pathlib.Path(scratch) / str(index)
            work.mkdir()
            found = check(program, work, build,
                          random.Random(seed).choice([2, 4, 16, 132]))
            if not options.quiet:
                verdict = ("ok" if found is None else found
                           if found == UNSTABLE else "FINDING in " + found[0])
                print(f"[{index + 1}/{options.programs}] seed {seed}: {verdict}",
                      file=sys.stderr, flush=True)
            if found == UNSTABLE:
                unstable += 1
                continue
            if found is None:
                continue
            findings += 1
            step, command, output = found
            keep = pathlib.Path(options.out) / f"{options.seed}-{index}"
            if keep.exists():
                shutil.rmtree(keep)
            keep.mkdir(parents=True)
            (keep / "prog.mlir").write_text(program)
            (keep / "finding.txt").write_text(
                f"step: {step}\nseed: {seed}\ncommand: {' '.join(command)}\n\n"
                f"{output}")
            print(f"finding: {step} on seed {seed}: {keep}/", flush=True)
            print("\n".join(output.strip().splitlines()[:6]), flush=True)
    print(f"{options.programs} programs, {findings} findings, "
          f"{unstable} numerically unstable or inconclusive (not judged)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())

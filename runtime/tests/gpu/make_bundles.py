#!/usr/bin/env python3
"""Bundles of the runtime's GPU smoke test, and the check of mirage-run's
results on them (run-smoke.sh runs both).

    make_bundles.py WORKDIR            WORKDIR/kernels.ptx (and kernels.cubin)
                                       -> WORKDIR/bundles/<name>/
    make_bundles.py --check RESULTS    mirage-run --modes graph,plain,pdl JSON

The bundles (smoke.cu has the kernels):
  smoke_mega          a mega-kernel: 64 workers, 256 tasks, one event; a view
                      in its address table; loaded from the cubin
  smoke_mega_hang     the event needs one trigger more than it gets: hangs in
                      the checked run (deadline 300 ms)
  smoke_mega_late     hangs in run 5, during graph timing
  smoke_mega_too_big  264 workers of 150000 B of shared memory: refused
  smoke_mixed         a pdl launch, the mega-kernel, a pdl launch (no pdl
                      timing: no launch follows another)
  smoke_ops_pdl       per-operator kernels marked pdl, after a copy
  smoke_ops_v1        the same as a version 1 manifest (no pdl marks)
  smoke_tma           version 3: kernels marked pdl reading x and (through a
                      view) tmp with tensor maps, one 2-D and unswizzled, one
                      3-D with a 128-byte swizzle
"""

import json
import pathlib
import re
import shutil
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
import mirage_baselines as mb  # noqa: E402

NB, T = 128, 256
N = NB * T
GENERATOR = {"kind": "uniform", "seed": 1, "low": -1.0, "high": 1.0}


def reference():
    x = mb.storage_to_float64(mb.draw_input(GENERATOR, 0, [N], "f32"), "f32")
    j = (np.arange(N) // T + 1) % NB * T + np.arange(N) % T
    return 2 * x + 2 * x[j]


def base(name, version):
    return {"format": "mirage-bundle", "version": version, "name": name,
            "source": "runtime/tests/gpu/smoke.cu", "chip": "sm_90a",
            "inputs_generator": GENERATOR,
            "reference": {"file": "reference.bin", "function": "smoke",
                          "tolerance": {"rel_l2": 1e-6}},
            "program": None}


def launch(kernel, args):
    return {"kind": "launch", "kernel": kernel, "grid": [NB, 1, 1],
            "block": [T, 1, 1], "dynamic_shared_bytes": 0, "args": args}


def mega(name, kernel="smoke_mk", needed=NB, deadline=2000, shared=0,
         idle_workers=0, workers=64):
    m = base(name, 5)
    m["kernels"] = [{"name": kernel}]
    m["buffers"] = [
        {"id": 0, "name": "arg0", "role": "input", "dtype": "f32", "shape": [N]},
        {"id": 1, "name": "tmp0", "role": "intermediate", "dtype": "f32",
         "shape": [N]},
        {"id": 2, "name": "out0", "role": "output", "dtype": "f32", "shape": [N]},
        {"id": 3, "name": "view0", "role": "view", "base": 1, "dtype": "f32",
         "shape": [NB, T]}]
    m["inputs"], m["outputs"] = [0], [2]
    # Tasks 0..NB-1 scale x into tmp and trigger event 0; tasks NB..2NB-1
    # wait for it and mix tmp (read through the view) into out.
    # Records: body, kernel, block, waits (count, first, more), triggers
    # (likewise), first operand.
    tasks = []
    for b in range(NB):
        tasks += [0, 0, b, 0, 0, 0, -1, 0, 1, 0, 0, 0]
    for b in range(NB):
        tasks += [1, 1, b, 0, 0, 1, 0, 0, 0, -1, 0, 2]
    queues, starts = [], [0]
    for w in range(workers):
        queues += [b for b in range(NB) if b % workers == w]
        queues += [NB + b for b in range(NB) if b % workers == w]
        starts.append(len(queues))
    starts += [len(queues)] * idle_workers
    m["steps"] = [{"kind": "megakernel", "kernel": kernel,
                   "grid": [workers + idle_workers, 1, 1], "block": [T, 1, 1],
                   "dynamic_shared_bytes": shared,
                   "address_table": [0, 1, 3, 2],
                   "tables": {"tasks": tasks, "queue_starts": starts,
                              "queues": queues, "needed": [needed],
                              "event_lists": []},
                   "task_kernels": ["k0_scale", "k1_mix"],
                   "task_kernel_buffers": [2, 2],
                   "deadline_ms": deadline}]
    return m


def per_operator(name, version):
    m = base(name, version)
    m["kernels"] = [{"name": "smoke_scale"}, {"name": "smoke_mix"}]
    if version >= 2:
        for kernel in m["kernels"]:
            kernel["pdl"] = True
    m["buffers"] = [
        {"id": 0, "name": "arg0", "role": "input", "dtype": "f32", "shape": [N]},
        {"id": 1, "name": "tmp0", "role": "intermediate", "dtype": "f32",
         "shape": [N]},
        {"id": 2, "name": "tmp1", "role": "intermediate", "dtype": "f32",
         "shape": [N]},
        {"id": 3, "name": "out0", "role": "output", "dtype": "f32", "shape": [N]}]
    m["inputs"], m["outputs"] = [0], [3]
    m["steps"] = [{"kind": "copy", "src": 0, "dst": 2, "bytes": 4 * N},
                  launch("smoke_scale", [2, 1]), launch("smoke_mix", [1, 3])]
    return m


def tensor_map(buffer, box, swizzle):
    return {"tensor_map": {"buffer": buffer, "box": box, "swizzle": swizzle}}


def tma():
    m = base("smoke_tma", 3)
    m["kernels"] = [{"name": "smoke_tma_scale", "pdl": True},
                    {"name": "smoke_tma_mix", "pdl": True}]
    m["buffers"] = [
        {"id": 0, "name": "arg0", "role": "input", "dtype": "f32",
         "shape": [NB, T]},
        {"id": 1, "name": "tmp0", "role": "intermediate", "dtype": "f32",
         "shape": [N]},
        {"id": 2, "name": "out0", "role": "output", "dtype": "f32", "shape": [N]},
        {"id": 3, "name": "view0", "role": "view", "base": 1, "dtype": "f32",
         "shape": [NB, 8, T // 8]}]
    m["inputs"], m["outputs"] = [0], [2]
    m["steps"] = [
        launch("smoke_tma_scale", [tensor_map(0, [1, T], 0), 1]),
        launch("smoke_tma_mix", [tensor_map(3, [1, 8, T // 8], 128), 2])]
    return m


def mixed():
    """out0 by the mega-kernel, out1 by pdl launches around it."""
    m = mega("smoke_mixed")
    m["kernels"] += [{"name": "smoke_scale", "pdl": True},
                     {"name": "smoke_mix", "pdl": True}]
    m["buffers"] += [
        {"id": 4, "name": "tmp1", "role": "intermediate", "dtype": "f32",
         "shape": [N]},
        {"id": 5, "name": "out1", "role": "output", "dtype": "f32", "shape": [N]}]
    m["outputs"] = [2, 5]
    m["steps"] = ([launch("smoke_scale", [0, 4])] + m["steps"]
                  + [launch("smoke_mix", [4, 5])])
    return m


def write_bundles(work):
    work = pathlib.Path(work)
    root = work / "bundles"
    shutil.rmtree(root, ignore_errors=True)
    ref = reference()
    manifests = [
        (mega("smoke_mega"), True),
        (mega("smoke_mega_hang", needed=NB + 1, deadline=300), False),
        (mega("smoke_mega_late", kernel="smoke_mk_late", deadline=200), False),
        (mega("smoke_mega_too_big", shared=150000, idle_workers=200), False),
        (mixed(), False),
        (per_operator("smoke_ops_pdl", 2), False),
        (per_operator("smoke_ops_v1", 1), False),
        (tma(), True),
    ]
    for manifest, cubin in manifests:
        path = root / manifest["name"]
        path.mkdir(parents=True)
        shutil.copy(work / "kernels.ptx", path / "kernels.ptx")
        manifest["binary"] = {"ptx": "kernels.ptx"}
        if cubin and (work / "kernels.cubin").exists():
            shutil.copy(work / "kernels.cubin", path / "kernels.cubin")
            manifest["binary"]["cubin"] = "kernels.cubin"
        outputs = len(manifest["outputs"])
        np.concatenate([ref] * outputs).astype("<f8").tofile(path / "reference.bin")
        (path / "manifest.json").write_text(json.dumps(manifest))
    print(f"{len(manifests)} bundles in {root}")


# ------------------------------------------------------------------ check ---

MODES = ["graph", "plain", "pdl"]


def check(results_path):
    """The problems with mirage-run's results, one line each."""
    results = {r["name"]: r for r in json.loads(
        pathlib.Path(results_path).read_text())["results"]}
    problems = []

    def expect(name, what, condition):
        if not condition:
            problems.append(f"{name}: expected {what}")

    def timed(result, mode):
        return "median_us" in (result.get("timings") or {}).get(mode, {})

    def skipped(result, mode, reason):
        return reason in (result.get("timings") or {}).get(mode, {}).get(
            "skipped", "")

    for name in ["smoke_mega", "smoke_mixed", "smoke_ops_pdl", "smoke_ops_v1",
                 "smoke_tma"]:
        r = results.get(name, {})
        expect(name, "ok", r.get("ok") is True)
        expect(name, "a passing check", (r.get("check") or {}).get("pass"))
        expect(name, "function smoke", r.get("function") == "smoke")
        expect(name, "graph and plain times",
               timed(r, "graph") and timed(r, "plain"))
        expect(name, "timing = graph timing",
               r.get("timing") == (r.get("timings") or {}).get("graph"))
    for name in ["smoke_ops_pdl", "smoke_tma"]:
        expect(name, "pdl times", timed(results.get(name, {}), "pdl"))
    # Its launches follow a mega-kernel or start a set: none overlaps.
    expect("smoke_mixed", "pdl skipped with no launch after a launch",
           skipped(results.get("smoke_mixed", {}), "pdl",
                   "no launch step follows another"))
    expect("smoke_mega", "pdl skipped for want of launch steps",
           skipped(results.get("smoke_mega", {}), "pdl", "no launch steps"))
    expect("smoke_mega", "the cubin loaded",
           results.get("smoke_mega", {}).get("binary") == "cubin")
    expect("smoke_ops_v1", "pdl skipped for an unmarked kernel",
           skipped(results.get("smoke_ops_v1", {}), "pdl", "is not marked"))
    mega = (results.get("smoke_mixed", {}).get("megakernels") or [{}])[0]
    expect("smoke_mixed", "its mega-kernel at step 1, 64 workers, 256 tasks",
           (mega.get("step"), mega.get("workers"), mega.get("tasks"),
            mega.get("events")) == (1, 64, 256, 1) and "hang" not in mega)

    hang_pattern = (r"mega-kernel hang: task (\d+) \(k1_mix, block \[(\d+), 0, "
                    r"0\]\) on worker (\d+) waited more than {ms} ms on event "
                    r"0: {count} of {needed} triggers this run$")
    for name, ms, count, needed, during in [
            ("smoke_mega_hang", 300, 128, 129, "the checked run"),
            ("smoke_mega_late", 200, 127, 128, "graph timing")]:
        r = results.get(name, {})
        mega = (r.get("megakernels") or [{}])[0]
        match = re.match(hang_pattern.format(ms=ms, count=count, needed=needed),
                         mega.get("hang", ""))
        expect(name, f"a hang of a mix task, {count} of {needed} triggers, "
               f"got {mega.get('hang')!r}", match)
        if match:
            task, block, worker = map(int, match.groups())
            expect(name, "the task's own block and worker",
                   task == NB + block and worker == block % 64)
        expect(name, f"the hang during {during}", mega.get("hang_during") == during)
        expect(name, "not ok", r.get("ok") is False and not r.get("error"))
    expect("smoke_mega_hang", "every mode skipped",
           all(skipped(results.get("smoke_mega_hang", {}), mode, "checked run")
               for mode in MODES))
    late = results.get("smoke_mega_late", {})
    expect("smoke_mega_late", "graph times discarded, later modes skipped",
           "hung" in (late.get("timings") or {}).get("graph", {}).get("error", "")
           and skipped(late, "plain", "earlier timing mode")
           and skipped(late, "pdl", "earlier timing mode"))
    expect("smoke_mega_late", "the checked run passed",
           (late.get("check") or {}).get("pass"))
    expect("smoke_mega_too_big", "the residency refusal",
           "264 workers cannot all be resident: 1 CTA of 256 threads with "
           "150000 B of shared memory" in results.get(
               "smoke_mega_too_big", {}).get("error", ""))
    return problems


def main(argv):
    if len(argv) == 2 and argv[0] == "--check":
        problems = check(argv[1])
        for problem in problems:
            print(problem)
        print("smoke test: " + ("FAILED" if problems else "passed"))
        return 1 if problems else 0
    if len(argv) == 1:
        write_bundles(argv[0])
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

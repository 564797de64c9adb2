#!/usr/bin/env python3
"""How well the speed model ranks what a GPU run measured.

Reads the mirage-run JSON of one or more package runs (the `mirage-run.json`
of run.sh's results, or the `--json` of mirage-run), where every kernel of a
per-operator bundle carries the model's view of it (`model.estimate_us`,
recorded by mirage-bundle). A bundle's estimate is the sum of its kernels';
its time is the median of its CUDA-graph replays. Among the pairs of bundles
whose measured times differ by more than 10%, it counts those the estimates
put in the measured order (issue 14's criterion: at least 90%), and lists
the others, largest disagreement first.

With --phases it ranks the phases of mega-kernels instead: per task-graph
kernel of a traced mega-kernel run, the model's estimate of one task's body
(`model.task_kernels[].body_us` of the mega-kernel's manifest entry: what
tg-schedule plans with, less the fixed cost of a wait and a signal) against
the measured body time per task of the trace, and prints each phase's
measured over estimated time.

Pairs whose estimates are equal (the layers of a multi-layer step share
their kernels' estimates) are not counted in either mode.

    speed-model-ranking.py RUN.json [RUN.json ...] [--list N] [--phases]
"""

import argparse
import itertools
import json
import math


def bundles(paths):
    """(name, estimate µs, measured µs) per bundle with a model for every
    kernel and a graph time; a name seen twice keeps its first run."""
    seen = {}
    for path in paths:
        with open(path) as f:
            run = json.load(f)
        for result in run.get("results", []):
            kernels = result.get("kernels") or []
            timings = result.get("timings") or {}
            graph = timings.get("graph") or {}
            if (not result.get("ok") or not kernels or "median_us" not in graph
                    or any("model" not in k for k in kernels)):
                continue
            estimate = sum(k["model"]["estimate_us"] for k in kernels)
            seen.setdefault(result["name"], (estimate, graph["median_us"]))
    return [(name, e, t) for name, (e, t) in seen.items()]


def phases(paths):
    """(bundle: kernel, estimate µs, measured µs) per traced phase of a
    mega-kernel whose manifest entry has the model's task estimates; a name
    seen twice keeps its first run."""
    seen = {}
    for path in paths:
        with open(path) as f:
            run = json.load(f)
        for result in run.get("results", []):
            if not result.get("ok"):
                continue
            models = {}
            for kernel in result.get("kernels") or []:
                for entry in (kernel.get("model") or {}).get("task_kernels") or []:
                    models[(kernel["name"], entry["kernel"])] = entry["body_us"]
            for mega in result.get("megakernels") or []:
                for phase in mega.get("trace") or []:
                    estimate = models.get((mega["kernel"], phase["kernel"]))
                    if not estimate or not phase["tasks"]:
                        continue
                    seen.setdefault(f"{result['name']}: {phase['kernel']}",
                                    (estimate, phase["body_us"] / phase["tasks"]))
    return [(name, e, t) for name, (e, t) in seen.items()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--list", type=int, default=10,
                        help="disagreeing pairs to list (default 10)")
    parser.add_argument("--phases", action="store_true",
                        help="rank mega-kernel phases (per task) instead of "
                             "bundles")
    args = parser.parse_args()
    what = "phases" if args.phases else "bundles"
    points = phases(args.runs) if args.phases else bundles(args.runs)
    # A time of zero (a phase whose trace recorded nothing) ranks nothing.
    points = [point for point in points if point[2] > 0]
    if args.phases:
        for name, estimate, measured in points:
            print(f"  {name}: estimated {estimate:.2f}, measured "
                  f"{measured:.2f} us per task ({measured / estimate:.2f}x)")
    ordered, disagreeing = 0, []
    for a, b in itertools.combinations(points, 2):
        if max(a[2], b[2]) < 1.1 * min(a[2], b[2]) or a[1] == b[1]:
            continue
        if (a[1] < b[1]) == (a[2] < b[2]):
            ordered += 1
        else:
            gap = abs(math.log(a[2] / b[2]))
            disagreeing.append((gap, a, b))
    pairs = ordered + len(disagreeing)
    if pairs == 0:
        print(f"{len(points)} {what}; no pairs more than 10% apart")
        return
    print(f"{len(points)} {what}; {ordered} of {pairs} pairs more than 10% "
          f"apart in the measured order ({100.0 * ordered / pairs:.1f}%)")
    digits = 2 if args.phases else 1
    for gap, a, b in sorted(disagreeing, reverse=True)[:args.list]:
        print(f"  {a[0]}: estimated {a[1]:.{digits}f}, measured "
              f"{a[2]:.{digits}f} us; {b[0]}: estimated {b[1]:.{digits}f}, "
              f"measured {b[2]:.{digits}f} us")


if __name__ == "__main__":
    main()

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

    speed-model-ranking.py RUN.json [RUN.json ...] [--list N]
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--list", type=int, default=10,
                        help="disagreeing pairs to list (default 10)")
    args = parser.parse_args()
    points = bundles(args.runs)
    ordered, disagreeing = 0, []
    for a, b in itertools.combinations(points, 2):
        if max(a[2], b[2]) < 1.1 * min(a[2], b[2]):
            continue
        if (a[1] < b[1]) == (a[2] < b[2]):
            ordered += 1
        else:
            gap = abs(math.log(a[2] / b[2]))
            disagreeing.append((gap, a, b))
    pairs = ordered + len(disagreeing)
    if pairs == 0:
        print(f"{len(points)} bundles; no pairs more than 10% apart")
        return
    print(f"{len(points)} bundles; {ordered} of {pairs} pairs more than 10% "
          f"apart in the measured order ({100.0 * ordered / pairs:.1f}%)")
    for gap, a, b in sorted(disagreeing, reverse=True)[:args.list]:
        print(f"  {a[0]}: estimated {a[1]:.1f}, measured {a[2]:.1f} us; "
              f"{b[0]}: estimated {b[1]:.1f}, measured {b[2]:.1f} us")


if __name__ == "__main__":
    main()

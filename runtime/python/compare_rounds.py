#!/usr/bin/env python3
"""Tables of a compare.sh run's rounds (mirage-run --json files).

    compare_rounds.py ROUND.json [ROUND.json ...] [--trace A B]

Per round, one line per bundle in the order the round first ran it: its
check (the relative L2 error against the reference, or why there is none),
each of its runs' median as a CUDA graph (and with programmatic dependent
launch where the bundle has it) in the order they ran, and their mean.
With --trace, the phases of mega-kernel bundles A and B side by side (from
each one's last traced run): when each phase's first body began and its
last ended (µs from the first wait) and its body time per task.
"""

import argparse
import json
import pathlib
import sys

import mirage_report as mr


def runs_by_bundle(results):
    """{bundle name: [result, ...]} in the order the round first ran each."""
    runs = {}
    for result in results:
        runs.setdefault(result["name"], []).append(result)
    return runs


def check_text(result):
    """PASS or FAIL with the worst relative L2 error over the outputs, or
    why nothing was checked."""
    verdict = mr.passed(result)
    if verdict is None:
        return (result.get("check") or {}).get("skipped") or "ran"
    worst = mr.worst_rel_l2(result)
    text = "PASS" if verdict else "FAIL"
    return f"{text} {worst:.2e}" if worst is not None else text


def times_text(values):
    present = [v for v in values if v is not None]
    if not present:
        return "-"
    text = ", ".join(f"{v:.2f}" for v in present)
    if len(present) > 1:
        text += f" (mean {sum(present) / len(present):.2f})"
    return text


def round_table(name, results):
    lines = [f"### {name}", "",
             "| bundle | check | graph µs | PDL µs |", "| --- | --- | --- | --- |"]
    for bundle, runs in runs_by_bundle(results).items():
        lines.append(f"| {bundle} | {check_text(runs[-1])} | "
                     f"{times_text([mr.mode_times(r).get('graph') for r in runs])} | "
                     f"{times_text([mr.mode_times(r).get('pdl') for r in runs])} |")
    return "\n".join(lines)


def last_trace(results, bundle):
    """The trace of `bundle`'s last traced run in `results`, or None."""
    trace = None
    for result in results:
        if result["name"] != bundle:
            continue
        for mega in result.get("megakernels") or []:
            trace = mega.get("trace") or trace
    return trace


def trace_table(a, trace_a, b, trace_b):
    """Phases in the order of A's trace, then those only B has."""
    by_kernel_b = {phase["kernel"]: phase for phase in trace_b}
    kernels = [phase["kernel"] for phase in trace_a]
    kernels += [k for k in by_kernel_b if k not in kernels]
    by_kernel_a = {phase["kernel"]: phase for phase in trace_a}

    def cells(phase):
        if phase is None:
            return ["-", "-"]
        tasks = phase["tasks"] or 1
        return [f"{phase['first_body_us']:.2f} - {phase['last_end_us']:.2f}",
                f"{phase['body_us'] / tasks:.2f}"]

    lines = [f"| kernel | {a}: bodies µs | {a}: body per task | "
             f"{b}: bodies µs | {b}: body per task |",
             "| --- | --- | --- | --- | --- |"]
    for kernel in kernels:
        lines.append("| " + " | ".join(
            [kernel] + cells(by_kernel_a.get(kernel)) +
            cells(by_kernel_b.get(kernel))) + " |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rounds", nargs="+", help="mirage-run --json files")
    parser.add_argument("--trace", nargs=2, metavar=("A", "B"),
                        help="mega-kernel bundles whose phases to compare")
    options = parser.parse_args(argv)
    every = []
    for path in options.rounds:
        with open(path) as f:
            results = json.load(f).get("results") or []
        every += results
        print(round_table(pathlib.Path(path).stem, results))
        print()
    if options.trace:
        a, b = options.trace
        trace_a, trace_b = last_trace(every, a), last_trace(every, b)
        missing = [name for name, trace in ((a, trace_a), (b, trace_b))
                   if trace is None]
        if missing:
            print(f"compare_rounds.py: no trace of {', '.join(missing)}",
                  file=sys.stderr)
            return 1
        print(trace_table(a, trace_a, b, trace_b))
    return 0


if __name__ == "__main__":
    sys.exit(main())

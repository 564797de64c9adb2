#!/usr/bin/env python3
"""Tables of a compare.sh run's rounds (mirage-run --json files).

    compare_rounds.py ROUND.json [ROUND.json ...] [--trace A B [--layers N]]

Per round, one line per bundle in the order the round first ran it: its
check (the relative L2 error against the reference, or why there is none),
each of its runs' median as a CUDA graph (and with programmatic dependent
launch where the bundle has it) in the order they ran, and their mean.
With --trace, the phases of mega-kernel bundles A and B side by side (from
each one's last traced run): when each phase's first body began and its
last ended (µs from the first wait) and its body time per task. With
--layers N as well, each trace is a step of N layers of as many phases
each, and the table gives per phase of a layer, averaged over the layers
(all but the first and the last when N > 2), its hand-off (from the
previous phase's last signal to its first wait's end), its run (to its
last body's end), its signal (to its last signal) and its total (from the
previous phase's last signal to its own), then the layer's sum.
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


PER_LAYER = ("handoff", "run", "signal", "total")


def layer_profile(trace, layers):
    """Per phase of a layer: its name (the middle layer's kernel without its
    k<index>_ prefix) and the PER_LAYER times averaged over the layers but
    the first and the last (all of them for 2 layers or fewer); None when
    the trace is not `layers` layers of as many phases each."""
    if layers < 1 or not trace or len(trace) % layers:
        return None
    per = len(trace) // layers
    kept = range(1, layers - 1) if layers > 2 else range(layers)
    profile = []
    for position in range(per):
        sums = dict.fromkeys(PER_LAYER, 0.0)
        for layer in kept:
            index = layer * per + position
            phase = trace[index]
            before = trace[index - 1]["last_signal_us"] if index else 0.0
            sums["handoff"] += phase["first_wait_end_us"] - before
            sums["run"] += phase["last_end_us"] - phase["first_wait_end_us"]
            sums["signal"] += phase["last_signal_us"] - phase["last_end_us"]
            sums["total"] += phase["last_signal_us"] - before
        name = trace[kept[len(kept) // 2] * per + position]["kernel"]
        profile.append((name.split("_", 1)[-1],
                        {key: value / len(kept) for key, value in sums.items()}))
    return profile


def layer_table(a, profile_a, b, profile_b):
    """The two profiles side by side, phase by phase, then the sums."""
    head = " | ".join(f"{name}: {key}" for name in (a, b) for key in PER_LAYER)
    lines = [f"| phase | {head} |", "| --- |" + " --- |" * (2 * len(PER_LAYER))]
    rows = list(zip(profile_a, profile_b))
    for (name, times_a), (_, times_b) in rows:
        lines.append("| " + " | ".join(
            [name] + [f"{times[key]:.2f}" for times in (times_a, times_b)
                      for key in PER_LAYER]) + " |")
    totals = [f"{sum(t['total'] for _, t in profile):.2f}"
              for profile in (profile_a, profile_b)]
    lines.append("| layer | " + " | ".join(
        ["", "", "", totals[0], "", "", "", totals[1]]) + " |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rounds", nargs="+", help="mirage-run --json files")
    parser.add_argument("--trace", nargs=2, metavar=("A", "B"),
                        help="mega-kernel bundles whose phases to compare")
    parser.add_argument("--layers", type=int, metavar="N",
                        help="with --trace: the traces are N layers of as many "
                             "phases each; compare a layer's phases, averaged")
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
        if not options.layers:
            print(trace_table(a, trace_a, b, trace_b))
            return 0
        profiles = [layer_profile(trace, options.layers)
                    for trace in (trace_a, trace_b)]
        if None in profiles or len(profiles[0]) != len(profiles[1]):
            print(f"compare_rounds.py: the traces of {a} and {b} are not "
                  f"{options.layers} layers of the same phase count",
                  file=sys.stderr)
            return 1
        print(layer_table(a, profiles[0], b, profiles[1]))
    elif options.layers:
        print("compare_rounds.py: --layers goes with --trace", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

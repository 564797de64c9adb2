#!/usr/bin/env python3
"""Merges mirage-run's JSON with the PyTorch baselines' JSON, by bundle name.

    python3 mirage_report.py --mirage-run mirage-run.json \\
        --baselines baselines.json --json results.json --markdown summary.md

Writes results.json (both documents' entries side by side, plus the derived
columns) and summary.md, and prints the Markdown table last. Either input may
be missing (a crashed step): its columns then read "-". Exits 1 when any
bundle failed its check or did not run, so a runner script can pass that on.

When mirage-run timed several launch modes (--modes graph,plain,pdl), the
table gets a column per extra mode ("ours us" is the first mode's time, the
graph replay by default). When the results hold a mega-kernel bundle and a
per-operator bundle of the same program (the same reference function), a
second table compares them. With --outputs (mirage-run --dump-outputs), the
outputs of each such pair are compared with each other too; a bundle built
without a reference (too large for the float64 interpreter) then passes or
fails by that agreement (relative L2 at most AGREEMENT_TOLERANCE).
"""

import argparse
import json
import math
import pathlib
import struct
import sys

COLUMNS = ["bundle", "rel L2 (worst output)", "pass", "ours us", "eager us",
           "eager+graph us", "compile+graph us", "floor us", "ours / eager",
           "ours / best baseline"]
BASELINE_KEYS = ["eager_us", "eager_graph_us", "compile_graph_us"]
# mirage-run's timing modes besides the first, each with its column.
MODE_COLUMNS = [("plain", "ours plain us"), ("pdl", "ours pdl us")]
PAIR_COLUMNS = ["program", "mega-kernel bundle", "mega-kernel us",
                "per-operator bundle", "per-operator us", "best mode",
                "best mode us", "mega / per-op", "mega / best mode",
                "rel L2 between them"]
# Two forms of one program agree when their outputs differ by at most this
# relative L2 (the reference check's tolerance).
AGREEMENT_TOLERANCE = 1e-2
# struct formats of the dumped element types (bf16 is widened by hand).
ELEMENT_FORMATS = {"f16": "e", "f32": "f", "bf16": "H"}


def load(path):
    """The JSON document at path, or None (with the reason) when unusable."""
    if path is None:
        return None, None
    try:
        return json.loads(pathlib.Path(path).read_text()), None
    except (OSError, ValueError) as error:
        return None, f"{path}: {error}"


def worst_rel_l2(ours):
    """The largest rel L2 over the outputs mirage-run checked, or None."""
    values = [o.get("rel_l2") for o in (ours.get("check") or {}).get("outputs", [])]
    values = [v for v in values if v is not None]
    return max(values) if values else None


def passed(ours):
    """True/False from mirage-run's check; False when the bundle did not run;
    None when there was no check (--no-check) or it was skipped."""
    if ours is None:
        return None
    if not ours.get("ok", False):
        return False
    check = ours.get("check")
    if not check or "skipped" in check:
        return None
    return bool(check.get("pass"))


def mode_times(ours):
    """{mode: median us or None} for every mode mirage-run was asked for."""
    timings = (ours or {}).get("timings") or {}
    return {mode: (entry or {}).get("median_us") for mode, entry in timings.items()}


def hang(ours):
    """The first mega-kernel hang mirage-run reported, as (text, when), or None."""
    for mega in (ours or {}).get("megakernels") or []:
        if mega.get("hang"):
            return mega["hang"], mega.get("hang_during")
    return None


def ratio(numerator, denominator):
    if numerator is None or not denominator:
        return None
    return numerator / denominator


def summarize(name, ours, base):
    """One merged row: both entries plus the table's derived numbers."""
    ours_us = ((ours or {}).get("timing") or {}).get("median_us")
    base = base or {}
    baselines = [base.get(k) for k in BASELINE_KEYS if base.get(k) is not None]
    return {
        "name": name,
        "rel_l2": worst_rel_l2(ours) if ours else None,
        "pass": passed(ours),
        "ours_us": ours_us,
        "eager_us": base.get("eager_us"),
        "eager_graph_us": base.get("eager_graph_us"),
        "compile_graph_us": base.get("compile_graph_us"),
        "floor_us": base.get("floor_us"),
        "ours_over_eager": ratio(ours_us, base.get("eager_us")),
        "ours_over_best": ratio(ours_us, min(baselines) if baselines else None),
        "modes": mode_times(ours),
        "function": (ours or {}).get("function"),
        "megakernel": bool((ours or {}).get("megakernels")),
        "mirage_run": ours,
        "baselines": base or None,
    }


def best_mode(row):
    """(mode, us) of the row's fastest timed mode, or (None, None)."""
    timed = [(us, mode) for mode, us in row["modes"].items() if us is not None]
    if not timed:
        return (None, row["ours_us"]) if row["ours_us"] is not None else (None, None)
    us, mode = min(timed)
    return mode, us


def read_dumped_outputs(outputs_dir, ours):
    """The outputs mirage-run dumped for a bundle, as lists of floats, or
    None when they or the bundle's manifest are missing."""
    if outputs_dir is None or not ours.get("bundle"):
        return None
    try:
        manifest = json.loads(
            (pathlib.Path(ours["bundle"]) / "manifest.json").read_text())
        buffers = {b["id"]: b for b in manifest["buffers"]}
        values = []
        for k, buffer_id in enumerate(manifest["outputs"]):
            dtype = buffers[buffer_id]["dtype"]
            raw = (pathlib.Path(outputs_dir) / manifest["name"] /
                   f"output{k}.bin").read_bytes()
            form = ELEMENT_FORMATS[dtype]
            items = [v for (v,) in struct.iter_unpack("<" + form, raw)]
            if dtype == "bf16":
                items = [struct.unpack("<f", struct.pack("<I", v << 16))[0]
                         for v in items]
            values.append(items)
        return values
    except (OSError, ValueError, KeyError, struct.error):
        return None


def disagreement(first, second):
    """The worst relative L2 of `first`'s outputs against `second`'s (inf
    when shapes differ or a value is not finite), or None without both."""
    if first is None or second is None:
        return None
    if len(first) != len(second):
        return math.inf
    worst = 0.0
    for a, b in zip(first, second):
        if len(a) != len(b):
            return math.inf
        diff = sum((x - y) ** 2 for x, y in zip(a, b))
        norm = sum(y * y for y in b)
        if not math.isfinite(diff) or not math.isfinite(norm):
            return math.inf
        worst = max(worst, math.sqrt(diff / norm) if norm else math.sqrt(diff))
    return worst


def program_of(row):
    """The program a row's bundle compiles: its reference function, or for a
    bundle without a reference its name up to the mega-kernel suffix
    (mirage-bundle names a mega-kernel bundle <function>_megakernel, then
    what --suffix appends)."""
    if row["function"]:
        return row["function"]
    name = row["name"]
    return name[:name.rindex("_megakernel")] if "_megakernel" in name else name


def megakernel_pairs(rows, outputs_dir=None):
    """Every timed mega-kernel bundle beside every per-operator bundle of the
    same program (reference function), with the ratios of their times and,
    with dumped outputs, how far apart their outputs are. A mega-kernel that
    failed is listed under the problems instead."""
    by_function = {}
    for row in rows:
        if row["mirage_run"] is not None:
            by_function.setdefault(program_of(row), []).append(row)
    pairs = []
    for function, group in by_function.items():
        for mega in (r for r in group
                     if r["megakernel"] and r["ours_us"] is not None):
            for per_op in (r for r in group if not r["megakernel"]):
                mode, best_us = best_mode(per_op)
                apart = disagreement(
                    read_dumped_outputs(outputs_dir, mega["mirage_run"]),
                    read_dumped_outputs(outputs_dir, per_op["mirage_run"]))
                for row, other in ((mega, per_op), (per_op, mega)):
                    if row["pass"] is None and apart is not None:
                        row["pass"] = apart <= AGREEMENT_TOLERANCE
                        row["rel_l2"] = apart
                        row["checked_against"] = other["name"]
                pairs.append({
                    "function": function,
                    "megakernel": mega["name"],
                    "per_operator": per_op["name"],
                    "megakernel_us": mega["ours_us"],
                    "per_operator_us": per_op["ours_us"],
                    "per_operator_best_mode": mode,
                    "per_operator_best_us": best_us,
                    "megakernel_over_per_operator":
                        ratio(mega["ours_us"], per_op["ours_us"]),
                    "megakernel_over_best": ratio(mega["ours_us"], best_us),
                    "outputs_rel_l2": apart,
                })
    return pairs


def merge(ours_doc, base_doc, outputs_dir=None):
    """results.json: rows in mirage-run's order, then baseline-only bundles."""
    ours_by_name = {r["name"]: r for r in (ours_doc or {}).get("results", [])}
    base_by_name = {r["name"]: r for r in (base_doc or {}).get("results", [])}
    names = list(ours_by_name) + [n for n in base_by_name if n not in ours_by_name]
    rows = [summarize(n, ours_by_name.get(n), base_by_name.get(n)) for n in names]
    pairs = megakernel_pairs(rows, outputs_dir)
    return {
        "device": {"mirage_run": (ours_doc or {}).get("device"),
                   "baselines": (base_doc or {}).get("device")},
        "copy_bandwidth_bytes_per_s":
            (base_doc or {}).get("copy_bandwidth_bytes_per_s"),
        "results": rows,
        "megakernel_pairs": pairs,
    }


def fmt(value, spec):
    """value formatted with spec, or '-' when missing."""
    return "-" if value is None else format(value, spec)


def extra_modes(merged):
    """The modes besides the first that any row was timed (or asked) in."""
    present = {mode for row in merged["results"] for mode in row["modes"]}
    first_modes = {next(iter(row["modes"]), None) for row in merged["results"]}
    return [(mode, column) for mode, column in MODE_COLUMNS
            if mode in present and not (first_modes == {mode})]


def table_row(row, modes=()):
    verdict = {True: "yes", False: "no", None: "-"}[row["pass"]]
    cells = [row["name"], fmt(row["rel_l2"], ".2e"), verdict,
             fmt(row["ours_us"], ".1f")]
    cells += [fmt(row["modes"].get(mode), ".1f") for mode, _ in modes]
    cells += [fmt(row["eager_us"], ".1f"),
              fmt(row["eager_graph_us"], ".1f"), fmt(row["compile_graph_us"], ".1f"),
              fmt(row["floor_us"], ".1f"), fmt(row["ours_over_eager"], ".2f"),
              fmt(row["ours_over_best"], ".2f")]
    return "| " + " | ".join(cells) + " |"


def markdown_table(merged):
    modes = extra_modes(merged)
    columns = COLUMNS[:4] + [column for _, column in modes] + COLUMNS[4:]
    lines = ["| " + " | ".join(columns) + " |",
             "|" + "|".join(" --- " for _ in columns) + "|"]
    lines += [table_row(row, modes) for row in merged["results"]]
    return "\n".join(lines)


def pairs_table(merged):
    """Mega-kernel against per-operator bundles of one program, or ''."""
    pairs = merged.get("megakernel_pairs") or []
    if not pairs:
        return ""
    lines = ["| " + " | ".join(PAIR_COLUMNS) + " |",
             "|" + "|".join(" --- " for _ in PAIR_COLUMNS) + "|"]
    for pair in pairs:
        cells = [pair["function"], pair["megakernel"],
                 fmt(pair["megakernel_us"], ".1f"), pair["per_operator"],
                 fmt(pair["per_operator_us"], ".1f"),
                 pair["per_operator_best_mode"] or "-",
                 fmt(pair["per_operator_best_us"], ".1f"),
                 fmt(pair["megakernel_over_per_operator"], ".2f"),
                 fmt(pair["megakernel_over_best"], ".2f"),
                 fmt(pair.get("outputs_rel_l2"), ".2e")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


TRACE_COLUMNS = ["kernel", "tasks", "events seen us", "first body us",
                 "last end us", "last signal us", "span us",
                 "body us per task", "model body us", "wait us per task",
                 "signal us per task", "GB/s over the span"]


def task_kernel_models(row, kernel_name):
    """The speed model's view of each task-graph kernel of the mega-kernel
    `kernel_name` (the manifest's kernels[].model.task_kernels; bundles
    built before 2026-11-29 have none), by kernel, and its device."""
    for kernel in (row["mirage_run"] or {}).get("kernels") or []:
        model = kernel.get("model") or {}
        if kernel.get("name") == kernel_name and model.get("task_kernels"):
            return ({entry["kernel"]: entry for entry in model["task_kernels"]},
                    model.get("device"))
    return {}, None


def trace_tables(merged):
    """Per mega-kernel bundle with a trace (mirage-run's untimed traced run),
    its task-graph kernels in the order their first bodies began; '' without."""
    sections = []
    for row in merged["results"]:
        for mega in (row["mirage_run"] or {}).get("megakernels") or []:
            trace = mega.get("trace") or []
            if not trace:
                continue
            models, device = task_kernel_models(row, mega.get("kernel"))
            lines = [f"### {row['name']}", "",
                     "| " + " | ".join(TRACE_COLUMNS) + " |",
                     "|" + "|".join(" --- " for _ in TRACE_COLUMNS) + "|"]
            for kernel in trace:
                model = models.get(kernel["kernel"]) or {}
                tasks = kernel["tasks"] or 1
                span = kernel["last_end_us"] - kernel["first_body_us"]
                # The bytes its buffers hold over the phase's span (mirage-run
                # reports them where the manifest lists each kernel's buffers).
                rate = (kernel["bytes"] / span / 1000.0
                        if kernel.get("bytes") and span > 0 else None)
                # When its first task saw its events complete and its last
                # had signalled (traces of manifest version 6 on).
                cells = [kernel["kernel"], str(kernel["tasks"]),
                         fmt(kernel.get("first_wait_end_us"), ".1f"),
                         fmt(kernel["first_body_us"], ".1f"),
                         fmt(kernel["last_end_us"], ".1f"),
                         fmt(kernel.get("last_signal_us"), ".1f"),
                         fmt(span, ".1f"),
                         fmt(kernel["body_us"] / tasks, ".2f"),
                         fmt(model.get("body_us"), ".2f"),
                         fmt(kernel["wait_us"] / tasks, ".2f"),
                         fmt(kernel["signal_us"] / tasks
                             if "signal_us" in kernel else None, ".2f"),
                         fmt(rate, ".0f")]
                lines.append("| " + " | ".join(cells) + " |")
            if models:
                lines += ["", "Model body: one task's body as the speed model"
                              f" estimates it for {device or 'its device'}"
                              " (tg::estimateTask, what tg-schedule plans with,"
                              " less the fixed cost of its wait and signal)."]
            sections.append("\n".join(lines))
    return "\n\n".join(sections)


def problems(merged, load_errors):
    """Lines naming every failure: unreadable inputs, run errors, baseline errors."""
    lines = [f"- {what}: {why}" for what, why in load_errors]
    for row in merged["results"]:
        ours = row["mirage_run"]
        hung = hang(ours)
        if ours is None:
            lines.append(f"- {row['name']}: not run by mirage-run")
        elif ours.get("error"):
            lines.append(f"- {row['name']}: mirage-run: {ours['error']}")
        elif row["pass"] is False and not hung:
            against = row.get("checked_against")
            lines.append(f"- {row['name']}: check failed" +
                         (f" (outputs {fmt(row['rel_l2'], '.2e')} apart from "
                          f"{against}'s)" if against else ""))
        if hung:
            text, during = hung
            lines.append(f"- {row['name']}: {text} (during {during})")
        for error in (row["baselines"] or {}).get("errors", []):
            lines.append(f"- {row['name']}: baselines: {error}")
    return lines


def device_line(merged):
    ours = merged["device"]["mirage_run"] or {}
    base = merged["device"]["baselines"] or {}
    name = ours.get("name") or base.get("name") or "unknown device"
    bandwidth = merged["copy_bandwidth_bytes_per_s"]
    copy = f", copy bandwidth {bandwidth / 1e9:.0f} GB/s" if bandwidth else ""
    torch = f", torch {base['torch']}" if base.get("torch") else ""
    return f"Device: {name}{copy}{torch}."


def pass_line(merged):
    rows = merged["results"]
    count = sum(1 for r in rows if r["pass"] is True)
    return f"{count} of {len(rows)} bundles passed their check."


def summary_markdown(merged, load_errors):
    """summary.md: device, pass count, table, then the problems found."""
    parts = ["# Mirage GPU test results", "", device_line(merged), "",
             pass_line(merged), "", markdown_table(merged)]
    pairs = pairs_table(merged)
    if pairs:
        parts += ["", "## Mega-kernel against per-operator kernels", "",
                  "Each program's mega-kernel bundle beside its per-operator "
                  "bundles: times of the first mode (CUDA graph replays by "
                  "default), and the per-operator bundle's fastest mode.", "",
                  pairs]
    traces = trace_tables(merged)
    if traces:
        parts += ["", "## Mega-kernel traces", "",
                  "Per task-graph kernel of each mega-kernel's run with a "
                  "trace, after timing (times from its first task's wait): when its first body "
                  "began and its last ended, and its bodies and waits per "
                  "task.", "", traces]
    found = problems(merged, load_errors)
    if found:
        parts += ["", "## Problems", ""] + found
    return "\n".join(parts) + "\n"


def all_passed(merged, ours_doc):
    """Whether mirage-run ran and every bundle it knows of passed."""
    rows = merged["results"]
    return ours_doc is not None and bool(rows) and all(r["pass"] is True for r in rows)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirage-run", help="mirage-run --json output")
    parser.add_argument("--baselines", help="mirage_baselines.py --json output")
    parser.add_argument("--json", required=True, help="merged results to write")
    parser.add_argument("--markdown", help="summary to write")
    parser.add_argument("--outputs",
                        help="mirage-run --dump-outputs directory: compare "
                             "the outputs of the two forms of each program")
    return parser.parse_args(argv)


def main(argv=None):
    options = parse_args(argv)
    ours_doc, ours_error = load(options.mirage_run)
    base_doc, base_error = load(options.baselines)
    load_errors = [(what, why) for what, why in
                   [("mirage-run JSON", ours_error), ("baselines JSON", base_error)]
                   if why]
    merged = merge(ours_doc, base_doc, options.outputs)
    pathlib.Path(options.json).write_text(json.dumps(merged, indent=2) + "\n")
    summary = summary_markdown(merged, load_errors)
    if options.markdown:
        pathlib.Path(options.markdown).write_text(summary)
    found = problems(merged, load_errors)
    if found:
        print("Problems:\n" + "\n".join(found) + "\n")
    print(device_line(merged))
    print(pass_line(merged) + "\n")
    pairs = pairs_table(merged)
    if pairs:
        print(pairs + "\n")
    print(markdown_table(merged))
    return 0 if all_passed(merged, ours_doc) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Merging mirage-run's and the baselines' JSON, and the Markdown table."""

import json

import mirage_report as mr

OURS = {
    "device": {"name": "NVIDIA H100 80GB HBM3"},
    "results": [
        {"name": "a", "ok": True,
         "check": {"pass": True, "tolerance": 0.01, "outputs": [
             {"buffer": 3, "elements": 8, "rel_l2": 1e-4, "max_abs": 1e-3,
              "nonfinite": 0, "unwritten": 0},
             {"buffer": 4, "elements": 8, "rel_l2": 3e-4, "max_abs": 1e-3,
              "nonfinite": 0, "unwritten": 0}]},
         "timing": {"median_us": 10.0, "min_us": 9.0, "mean_us": 10.5,
                    "replays": 100, "rotation_sets": 4, "set_bytes": 1024},
         "kernels": []},
        {"name": "b", "ok": True,
         "check": {"pass": False, "tolerance": 0.01, "outputs": [
             {"buffer": 1, "elements": 8, "rel_l2": 0.5, "max_abs": 1.0,
              "nonfinite": 0, "unwritten": 0}]},
         "timing": {"median_us": 4.0, "min_us": 3.0, "mean_us": 4.0,
                    "replays": 100, "rotation_sets": 2, "set_bytes": 64},
         "kernels": []},
        {"name": "c", "ok": False, "error": "cuModuleLoadData: invalid PTX"},
    ],
}
BASE = {
    "device": {"name": "NVIDIA H100 80GB HBM3", "torch": "2.11.0"},
    "copy_bandwidth_bytes_per_s": 3.0e12,
    "results": [
        {"name": "b", "bytes": 64, "floor_us": 0.5, "torch_rel_l2": 1e-4,
         "eager_us": 8.0, "eager_min_us": 7.0, "eager_graph_us": 2.0,
         "compile_graph_us": None, "errors": ["compile: BackendCompilerFailed: x"]},
        {"name": "a", "bytes": 1024, "floor_us": 1.0, "torch_rel_l2": 2e-4,
         "eager_us": 20.0, "eager_min_us": 19.0, "eager_graph_us": 12.0,
         "compile_graph_us": 8.0, "errors": []},
        {"name": "only_base", "bytes": 8, "floor_us": 0.1, "torch_rel_l2": None,
         "eager_us": None, "eager_min_us": None, "eager_graph_us": None,
         "compile_graph_us": None, "errors": [], "skipped": "no program"},
    ],
}


def rows_by_name(merged):
    return {r["name"]: r for r in merged["results"]}


def test_merge_by_name_in_mirage_run_order():
    merged = mr.merge(OURS, BASE)
    assert [r["name"] for r in merged["results"]] == ["a", "b", "c", "only_base"]
    assert merged["copy_bandwidth_bytes_per_s"] == 3.0e12
    assert merged["device"]["mirage_run"]["name"].startswith("NVIDIA")


def test_derived_columns():
    rows = rows_by_name(mr.merge(OURS, BASE))
    a = rows["a"]
    assert a["rel_l2"] == 3e-4 and a["pass"] is True
    assert a["ours_over_eager"] == 0.5 and a["ours_over_best"] == 10.0 / 8.0
    assert a["mirage_run"]["timing"]["replays"] == 100
    assert a["baselines"]["bytes"] == 1024
    b = rows["b"]
    assert b["pass"] is False and b["ours_over_best"] == 2.0  # best: eager+graph
    assert rows["c"]["pass"] is False and rows["c"]["ours_us"] is None
    assert rows["only_base"]["pass"] is None and rows["only_base"]["mirage_run"] is None


def test_table_missing_values_print_dash():
    table = mr.markdown_table(mr.merge(OURS, BASE)).splitlines()
    assert table[0] == ("| bundle | rel L2 (worst output) | pass | ours us | eager us"
                        " | eager+graph us | compile+graph us | floor us"
                        " | ours / eager | ours / best baseline |")
    assert table[2] == ("| a | 3.00e-04 | yes | 10.0 | 20.0 | 12.0 | 8.0 | 1.0"
                        " | 0.50 | 1.25 |")
    assert table[3] == "| b | 5.00e-01 | no | 4.0 | 8.0 | 2.0 | - | 0.5 | 0.50 | 2.00 |"
    assert table[4] == "| c | - | no | - | - | - | - | - | - | - |"
    assert table[5] == "| only_base | - | - | - | - | - | - | 0.1 | - | - |"


def test_problems_list_every_failure():
    found = "\n".join(mr.problems(mr.merge(OURS, BASE), []))
    assert "b: check failed" in found
    assert "c: mirage-run: cuModuleLoadData: invalid PTX" in found
    assert "only_base: not run by mirage-run" in found
    assert "b: baselines: compile: BackendCompilerFailed" in found


def write(tmp_path, name, document):
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return str(path)


def run_main(tmp_path, ours, base):
    args = ["--json", str(tmp_path / "results.json"),
            "--markdown", str(tmp_path / "summary.md")]
    if ours is not None:
        args += ["--mirage-run", ours]
    if base is not None:
        args += ["--baselines", base]
    return mr.main(args)


def test_main_writes_files_and_prints_table_last(tmp_path, capsys):
    status = run_main(tmp_path, write(tmp_path, "ours.json", OURS),
                      write(tmp_path, "base.json", BASE))
    assert status == 1  # b failed, c errored
    printed = capsys.readouterr().out.rstrip().splitlines()
    assert printed[-1].startswith("| only_base |")
    assert printed[-6].startswith("| bundle |")
    assert "1 of 4 bundles passed their check." in printed
    merged = json.loads((tmp_path / "results.json").read_text())
    assert len(merged["results"]) == 4
    summary = (tmp_path / "summary.md").read_text()
    assert "| a | 3.00e-04 | yes |" in summary and "## Problems" in summary
    assert "copy bandwidth 3000 GB/s" in summary


def test_main_passes_when_every_check_passes(tmp_path, capsys):
    ours = {"device": {}, "results": [OURS["results"][0]]}
    base = {"device": {}, "results": [BASE["results"][1]]}
    assert run_main(tmp_path, write(tmp_path, "o.json", ours),
                    write(tmp_path, "b.json", base)) == 0


def test_main_with_missing_mirage_run_json(tmp_path, capsys):
    status = run_main(tmp_path, str(tmp_path / "absent.json"),
                      write(tmp_path, "base.json", BASE))
    assert status == 1
    out = capsys.readouterr().out
    assert "mirage-run JSON" in out and "absent.json" in out
    assert "| a | - | - | - | 20.0 | 12.0 | 8.0 | 1.0 | - | - |" in out


def test_main_with_missing_baselines(tmp_path, capsys):
    ours = {"device": {}, "results": [OURS["results"][0]]}
    status = run_main(tmp_path, write(tmp_path, "o.json", ours), None)
    assert status == 0
    assert "| a | 3.00e-04 | yes | 10.0 | - | - | - | - | - | - |" in \
        capsys.readouterr().out


def timing(median):
    return {"median_us": median, "min_us": median, "mean_us": median,
            "replays": 20, "rotation_sets": 2, "set_bytes": 64}


# A per-operator bundle timed in three modes and a mega-kernel bundle of the
# same program, plus a mega-kernel of another program that hung.
MODES = {
    "device": {"name": "NVIDIA H100 80GB HBM3"},
    "results": [
        {"name": "f_ops", "ok": True, "function": "f",
         "check": {"pass": True, "tolerance": 0.01, "outputs": [
             {"buffer": 1, "elements": 8, "rel_l2": 1e-4, "max_abs": 1e-3,
              "nonfinite": 0, "unwritten": 0}]},
         "timing": timing(20.0),
         "timings": {"graph": timing(20.0), "plain": timing(30.0),
                     "pdl": timing(16.0)},
         "kernels": []},
        {"name": "f_mega", "ok": True, "function": "f",
         "check": {"pass": True, "tolerance": 0.01, "outputs": [
             {"buffer": 1, "elements": 8, "rel_l2": 2e-4, "max_abs": 1e-3,
              "nonfinite": 0, "unwritten": 0}]},
         "timing": timing(12.0),
         "timings": {"graph": timing(12.0), "plain": timing(13.0),
                     "pdl": {"skipped": "the bundle has no launch steps"}},
         "megakernels": [{"step": 0, "kernel": "f_mk", "workers": 132,
                          "threads": 128, "tasks": 800, "events": 90,
                          "deadline_ms": 2000}],
         "kernels": []},
        {"name": "g_mega", "ok": False, "function": "g",
         "check": {"pass": False, "tolerance": 0.01, "outputs": [
             {"buffer": 1, "elements": 8, "rel_l2": 1.0, "max_abs": 1.0,
              "nonfinite": 0, "unwritten": 8}]},
         "timings": {"graph": {"skipped": "a mega-kernel hung in the checked run"},
                     "plain": {"skipped": "a mega-kernel hung in the checked run"},
                     "pdl": {"skipped": "a mega-kernel hung in the checked run"}},
         "megakernels": [{"step": 0, "kernel": "g_mk", "workers": 132,
                          "threads": 128, "tasks": 800, "events": 90,
                          "deadline_ms": 2000,
                          "hang": "mega-kernel hang: task 812 (k5_matmul, "
                                  "block [3, 0, 0]) on worker 17 waited more "
                                  "than 2000 ms on event 97: 3 of 4 triggers "
                                  "this run",
                          "hang_during": "the checked run",
                          "hang_state": [0, 0, 1, 812, 97, 3, 4, 17, 2000000000]}],
         "kernels": []},
    ],
}


def test_mode_columns():
    merged = mr.merge(MODES, None)
    rows = rows_by_name(merged)
    assert rows["f_ops"]["modes"] == {"graph": 20.0, "plain": 30.0, "pdl": 16.0}
    assert rows["f_mega"]["modes"]["pdl"] is None
    assert rows["f_mega"]["megakernel"] and not rows["f_ops"]["megakernel"]
    table = mr.markdown_table(merged).splitlines()
    assert table[0].startswith("| bundle | rel L2 (worst output) | pass | ours us"
                               " | ours plain us | ours pdl us | eager us |")
    assert table[2].startswith("| f_ops | 1.00e-04 | yes | 20.0 | 30.0 | 16.0 | - |")
    assert table[3].startswith("| f_mega | 2.00e-04 | yes | 12.0 | 13.0 | - | - |")
    assert table[4].startswith("| g_mega | 1.00e+00 | no | - | - | - | - |")


def test_no_mode_columns_for_the_first_mode_alone():
    only_plain = {"results": [{"name": "a", "ok": True, "timing": timing(5.0),
                               "timings": {"plain": timing(5.0)}}]}
    header = mr.markdown_table(mr.merge(only_plain, None)).splitlines()[0]
    assert "ours plain us" not in header and "| ours us |" in header


def test_megakernel_pairs():
    merged = mr.merge(MODES, None)
    assert merged["megakernel_pairs"] == [{
        "function": "f", "megakernel": "f_mega", "per_operator": "f_ops",
        "megakernel_us": 12.0, "per_operator_us": 20.0,
        "per_operator_best_mode": "pdl", "per_operator_best_us": 16.0,
        "megakernel_over_per_operator": 0.6, "megakernel_over_best": 0.75,
        "outputs_rel_l2": None}]
    table = mr.pairs_table(merged).splitlines()
    assert table[0] == ("| program | mega-kernel bundle | mega-kernel us"
                        " | per-operator bundle | per-operator us | best mode"
                        " | best mode us | mega / per-op | mega / best mode"
                        " | rel L2 between them |")
    assert table[2] == ("| f | f_mega | 12.0 | f_ops | 20.0 | pdl | 16.0 | 0.60"
                        " | 0.75 | - |")
    # A mega-kernel with no time (here, one that hung) is not paired.
    hung_f = json.loads(json.dumps(MODES))
    hung_f["results"][2]["function"] = "f"
    assert [p["megakernel"] for p in mr.merge(hung_f, None)["megakernel_pairs"]] \
        == ["f_mega"]
    # Nothing to pair: no table.
    assert mr.pairs_table(mr.merge(OURS, BASE)) == ""
    assert mr.merge(OURS, BASE)["megakernel_pairs"] == []


def test_hangs_are_problems(tmp_path, capsys):
    found = "\n".join(mr.problems(mr.merge(MODES, None), []))
    assert ("g_mega: mega-kernel hang: task 812 (k5_matmul, block [3, 0, 0]) on "
            "worker 17 waited more than 2000 ms on event 97: 3 of 4 triggers "
            "this run (during the checked run)") in found
    assert "g_mega: check failed" not in found
    status = run_main(tmp_path, write(tmp_path, "ours.json", MODES), None)
    assert status == 1
    out = capsys.readouterr().out
    assert "| f | f_mega | 12.0 | f_ops |" in out
    assert out.rstrip().splitlines()[-1].startswith("| g_mega |")
    summary = (tmp_path / "summary.md").read_text()
    assert "## Mega-kernel against per-operator kernels" in summary


def unchecked_pair(tmp_path, mega_values, per_op_values):
    """MODES's program f without a reference: both bundles' manifests and
    dumped f16 outputs under tmp_path."""
    import struct
    doc = json.loads(json.dumps(MODES))
    del doc["results"][2]
    for entry, values in zip(doc["results"], (per_op_values, mega_values)):
        # Without a reference mirage-run names no function: the pair is
        # found by the bundle names.
        entry["name"] = entry["name"].replace("_ops", "").replace(
            "_mega", "_megakernel")
        del entry["function"]
        entry["check"] = {"skipped": "the bundle has no reference"}
        bundle = tmp_path / "bundles" / entry["name"]
        bundle.mkdir(parents=True)
        entry["bundle"] = str(bundle)
        (bundle / "manifest.json").write_text(json.dumps({
            "name": entry["name"], "outputs": [1],
            "buffers": [{"id": 0, "dtype": "f16"}, {"id": 1, "dtype": "f16"}]}))
        dump = tmp_path / "outputs" / entry["name"]
        dump.mkdir(parents=True)
        (dump / "output0.bin").write_bytes(
            struct.pack(f"<{len(values)}e", *values))
    return doc


def test_unchecked_forms_are_checked_against_each_other(tmp_path):
    doc = unchecked_pair(tmp_path, [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.01])
    merged = mr.merge(doc, None, str(tmp_path / "outputs"))
    apart = merged["megakernel_pairs"][0]["outputs_rel_l2"]
    assert 1e-4 < apart < 1e-2
    rows = rows_by_name(merged)
    assert rows["f_megakernel"]["pass"] is True and rows["f"]["pass"] is True
    assert rows["f_megakernel"]["checked_against"] == "f"
    # Without the dumps nothing is checked.
    plain = rows_by_name(mr.merge(doc, None))
    assert plain["f_megakernel"]["pass"] is None


def test_forms_that_disagree_fail(tmp_path):
    doc = unchecked_pair(tmp_path, [1.0, 2.0, 3.0, 5.0], [1.0, 2.0, 3.0, 4.0])
    merged = mr.merge(doc, None, str(tmp_path / "outputs"))
    rows = rows_by_name(merged)
    assert rows["f_megakernel"]["pass"] is False
    found = "\n".join(mr.problems(merged, []))
    assert "f_megakernel: check failed (outputs 1.83e-01 apart from f's)" in found
    nan = unchecked_pair(tmp_path / "nan", [float("nan")] * 4, [1.0] * 4)
    merged = mr.merge(nan, None, str(tmp_path / "nan" / "outputs"))
    assert rows_by_name(merged)["f_megakernel"]["pass"] is False


def test_trace_tables():
    ours = {"device": {"name": "H200"}, "results": [
        {"name": "f_mega", "ok": True, "timing": {"median_us": 12.0},
         "kernels": [{"name": "f", "model": {"device": "h200", "task_kernels": [
             {"kernel": "k1_matmul", "task_us": 6.75, "body_us": 6.25}]}}],
         "megakernels": [{"step": 0, "kernel": "f", "trace": [
             {"kernel": "k1_matmul", "tasks": 4, "first_body_us": 0.5,
              "last_end_us": 10.5, "wait_us": 2.0, "body_us": 30.0,
              "first_wait_end_us": 0.4, "last_signal_us": 10.8,
              "signal_us": 2.0,
              "bytes": 25000000},
             {"kernel": "(empty)", "tasks": 2, "first_body_us": 11.0,
              "last_end_us": 11.5, "wait_us": 1.0, "body_us": 0.2}]}]},
        {"name": "g", "ok": True, "timing": {"median_us": 1.0}, "kernels": []}]}
    merged = mr.merge(ours, None)
    lines = mr.trace_tables(merged).splitlines()
    assert lines[0] == "### f_mega"
    assert lines[2] == ("| kernel | tasks | events seen us | first body us"
                        " | last end us | last signal us | span us"
                        " | body us per task | model body us"
                        " | wait us per task | signal us per task"
                        " | GB/s over the span |")
    assert lines[4] == ("| k1_matmul | 4 | 0.4 | 0.5 | 10.5 | 10.8 | 10.0 | 7.50"
                        " | 6.25 | 0.50 | 0.50 | 2500 |")
    # A trace of an older manifest has no wait ends or signals, and a
    # kernel the model does not list has no estimate.
    assert lines[5] == ("| (empty) | 2 | - | 11.0 | 11.5 | - | 0.5 | 0.10"
                        " | - | 0.50 | - | - |")
    assert lines[7] == ("Model body: one task's body as the speed model"
                        " estimates it for h200 (tg::estimateTask, what"
                        " tg-schedule plans with, less the fixed cost of its"
                        " wait and signal).")
    # A bundle built before the models were recorded: no estimates and no
    # note.
    ours["results"][0]["kernels"] = [{"name": "f"}]
    lines = mr.trace_tables(mr.merge(ours, None)).splitlines()
    assert lines[4].endswith(" | 7.50 | - | 0.50 | 0.50 | 2500 |")
    assert len(lines) == 6
    assert "## Mega-kernel traces" in mr.summary_markdown(merged, [])
    # No trace, no section.
    assert mr.trace_tables(mr.merge(OURS, BASE)) == ""
    assert "## Mega-kernel traces" not in mr.summary_markdown(
        mr.merge(OURS, BASE), [])


def test_suffixed_megakernel_variants_pair_by_name(tmp_path):
    # mirage-bundle --suffix=_dyn: f_megakernel_dyn, no reference.
    doc = unchecked_pair(tmp_path, [1.0] * 4, [1.0] * 4)
    doc["results"][1]["name"] = "f_megakernel_dyn"
    pairs = mr.merge(doc, None)["megakernel_pairs"]
    assert [(p["megakernel"], p["per_operator"]) for p in pairs] == [
        ("f_megakernel_dyn", "f")]

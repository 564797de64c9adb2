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

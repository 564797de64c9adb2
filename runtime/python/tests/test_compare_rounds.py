"""compare_rounds.py: tables of compare.sh rounds."""

import json

import compare_rounds as cr


def result(name, graph, pdl=None, rel_l2=None, passed=True, trace=None):
    timings = {"graph": {"median_us": graph}}
    if pdl is not None:
        timings["pdl"] = {"median_us": pdl}
    check = ({"skipped": "the bundle has no reference"} if rel_l2 is None else
             {"pass": passed, "outputs": [{"rel_l2": rel_l2 / 2},
                                          {"rel_l2": rel_l2}]})
    entry = {"name": name, "ok": passed, "timings": timings, "check": check,
             "megakernels": []}
    if trace:
        entry["megakernels"] = [{"kernel": "f_tasks", "trace": trace}]
    return entry


def phase(kernel, tasks, first, last, body):
    return {"kernel": kernel, "tasks": tasks, "first_body_us": first,
            "last_end_us": last, "body_us": body}


def test_round_table_groups_runs_in_order():
    results = [result("f_old", 10.0, rel_l2=4e-4), result("f", 9.0, rel_l2=4e-4),
               result("g", 12.0, pdl=11.0), result("f_old", 11.0, rel_l2=4e-4),
               result("f", 9.5, rel_l2=2e-2, passed=False)]
    lines = cr.round_table("l1", results).splitlines()
    assert lines[0] == "### l1"
    assert lines[4] == ("| f_old | PASS 4.00e-04 | 10.00, 11.00 (mean 10.50)"
                        " | - |")
    # The last run's check is the one shown.
    assert lines[5] == "| f | FAIL 2.00e-02 | 9.00, 9.50 (mean 9.25) | - |"
    assert lines[6] == ("| g | the bundle has no reference | 12.00 | 11.00 |")


def test_trace_table_and_main(tmp_path, capsys):
    old = [phase("k0", 1, 0.5, 2.5, 2.0), phase("k1", 4, 3.0, 9.0, 20.0)]
    new = [phase("k0", 1, 0.5, 2.0, 1.5), phase("k2", 2, 2.5, 4.0, 3.0)]
    path = tmp_path / "l1.json"
    path.write_text(json.dumps({"results": [
        result("f_megakernel_old", 10.0, trace=old),
        result("f_megakernel", 9.0, trace=new)]}))
    assert cr.main([str(path), "--trace", "f_megakernel_old",
                    "f_megakernel"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "| k0 | 0.50 - 2.50 | 2.00 | 0.50 - 2.00 | 1.50 |" in out
    # Phases only one side has.
    assert "| k1 | 3.00 - 9.00 | 5.00 | - | - |" in out
    assert "| k2 | - | - | 2.50 - 4.00 | 1.50 |" in out
    assert cr.main([str(path), "--trace", "f_megakernel", "g"]) == 1
    assert "no trace of g" in capsys.readouterr().err

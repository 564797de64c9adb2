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


def timed(kernel, wait_end, last_end, last_signal):
    return {"kernel": kernel, "tasks": 1, "first_body_us": wait_end,
            "first_wait_end_us": wait_end, "last_end_us": last_end,
            "last_signal_us": last_signal, "body_us": last_end - wait_end}


def three_layers(slow):
    """Two phases per layer; the middle layer's second phase starts `slow`
    µs after the first's last signal."""
    trace, start = [], 0.0
    for layer in range(3):
        gap = slow if layer == 1 else 0.5
        trace.append(timed(f"k{2 * layer}_norm", start + 1.0, start + 2.0,
                           start + 2.5))
        trace.append(timed(f"k{2 * layer + 1}_matmul", start + 2.5 + gap,
                           start + 12.5, start + 13.0))
        start += 13.0
    return trace


def test_layer_profile_averages_the_middle_layers():
    profile = cr.layer_profile(three_layers(2.0), 3)
    # Only layer 1 counts: its norm waits 1.0 after layer 0's last signal.
    assert profile[0] == ("norm", {"handoff": 1.0, "run": 1.0, "signal": 0.5,
                                   "total": 2.5})
    assert profile[1] == ("matmul", {"handoff": 2.0, "run": 8.0,
                                     "signal": 0.5, "total": 10.5})
    # Not 3 layers of as many phases.
    assert cr.layer_profile(three_layers(2.0)[:5], 3) is None


def test_layers_table_and_errors(tmp_path, capsys):
    path = tmp_path / "l36.json"
    path.write_text(json.dumps({"results": [
        result("f_megakernel", 39.0, trace=three_layers(0.5)),
        result("f_megakernel_slow", 40.5, trace=three_layers(2.0))]}))
    assert cr.main([str(path), "--trace", "f_megakernel", "f_megakernel_slow",
                    "--layers", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert ("| matmul | 0.50 | 9.50 | 0.50 | 10.50 | 2.00 | 8.00 | 0.50 | "
            "10.50 |") in out
    assert "| layer |  |  |  | 13.00 |  |  |  | 13.00 |" in out
    assert cr.main([str(path), "--trace", "f_megakernel", "f_megakernel_slow",
                    "--layers", "4"]) == 1
    assert "not 4 layers" in capsys.readouterr().err
    assert cr.main([str(path), "--layers", "3"]) == 1
    assert "--layers goes with --trace" in capsys.readouterr().err

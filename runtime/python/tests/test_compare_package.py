"""The package's compare.sh (runtime/compare-package.sh), with stand-ins for
mirage-run, compute-sanitizer and nvidia-smi on a PATH of their own."""

import os
import pathlib
import shutil
import subprocess
import tarfile

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "compare-package.sh"

# Records its arguments and writes the --json file and a 3 MB output
# dump beside it, as mirage-run would.
FAKE_RUN = """#!/usr/bin/env bash
echo "$@" >> "$(dirname "$0")/calls.txt"
while [ $# -gt 0 ]; do
  if [ "$1" = --json ]; then
    echo '{"results": []}' > "$2"
    head -c 3000000 /dev/zero > "$(dirname "$2")/outputs.bin"
  fi
  shift
done
"""
FAKE_SANITIZER = """#!/usr/bin/env bash
echo "$2" >> "$(dirname "$0")/sanitizers.txt"
echo "========= ERROR SUMMARY: 0 errors"
"""
FAKE_SMI = """#!/usr/bin/env bash
echo "name, driver_version"
echo "Fake GPU, 1.0"
"""
# What the script needs from the system, and nothing else.
TOOLS = ["bash", "env", "date", "dirname", "mkdir", "ls", "find", "timeout",
         "tar", "gzip", "mktemp", "mv", "rm", "head", "cat"]


def make_package(tmp_path, gpu_tools=True):
    package = tmp_path / "package"
    for name in ("a", "b"):
        (package / "bundles" / name).mkdir(parents=True)
        (package / "bundles" / name / "manifest.json").write_text("{}")
    (package / "compare.sh").write_text(SCRIPT.read_text())
    (package / "compare.sh").chmod(0o755)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        (bin_dir / tool).symlink_to(shutil.which(tool))
    scripts = {"mirage-run": FAKE_RUN}
    if gpu_tools:
        scripts.update({"compute-sanitizer": FAKE_SANITIZER,
                        "nvidia-smi": FAKE_SMI})
    for name, text in scripts.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    return package, bin_dir


def run(package, bin_dir, *args):
    env = {"MIRAGE_RUN": str(bin_dir / "mirage-run"), "PATH": str(bin_dir)}
    return subprocess.run([str(package / "compare.sh"), *args], env=env,
                          capture_output=True, text=True)


def packed(out):
    """The names in OUTDIR/res.tgz and its times.txt."""
    with tarfile.open(out / "res.tgz") as archive:
        names = {pathlib.PurePath(n).name for n in archive.getnames()}
        times = archive.extractfile("./times.txt").read().decode()
    return names, times.splitlines()


def test_sanitizers_then_rounds_in_order_then_packed(tmp_path):
    package, bin_dir = make_package(tmp_path)
    out = tmp_path / "out"
    result = run(package, bin_dir, str(out), "--sanitize", "a",
                 "l1:a,b,a", "l36@7:b")
    assert result.returncode == 0, result.stderr
    calls = (bin_dir / "calls.txt").read_text().splitlines()
    assert calls == [
        f"bundles/a bundles/b bundles/a --modes graph,pdl --replays 50 "
        f"--json {out}/l1.json",
        f"bundles/b --modes graph,pdl --replays 7 --json {out}/l36.json"]
    assert (bin_dir / "sanitizers.txt").read_text().split() == [
        "memcheck", "racecheck", "synccheck"]
    # OUTDIR holds the archive alone; files over 2 MB were left out.
    assert [p.name for p in out.iterdir()] == ["res.tgz"]
    names, lines = packed(out)
    assert {"l1.json", "l1.log", "l36.json", "l36.log", "memcheck.log",
            "racecheck.log", "synccheck.log", "times.txt"} <= names
    assert "outputs.bin" not in names
    assert [line.split(" rc=")[0] for line in lines[:5]] == [
        "memcheck", "racecheck", "synccheck", "l1", "l36"]
    assert all(" rc=0 at " in line for line in lines[:5])
    assert lines[-1] == "Fake GPU, 1.0"


def test_missing_gpu_tools_fail_the_steps_not_the_packing(tmp_path):
    package, bin_dir = make_package(tmp_path, gpu_tools=False)
    out = tmp_path / "out"
    result = run(package, bin_dir, str(out), "--sanitize", "a", "l1:a")
    assert result.returncode == 1
    _, lines = packed(out)
    assert lines[0].startswith("memcheck rc=127 at ")
    assert lines[3].startswith("l1 rc=0 at ")
    assert lines[-1] == "no nvidia-smi"


def test_steps_with_no_time_left_are_skipped(tmp_path):
    package, bin_dir = make_package(tmp_path)
    out = tmp_path / "out"
    result = run(package, bin_dir, str(out), "--budget", "0", "l1:a")
    assert result.returncode == 1
    assert not (bin_dir / "calls.txt").exists()
    _, lines = packed(out)
    assert lines[0] == "l1 skipped: no time left"


def test_bad_arguments_are_refused_before_anything_runs(tmp_path):
    package, bin_dir = make_package(tmp_path)
    out = str(tmp_path / "out")
    refused = [
        ([out, "l1:a,c"], "no bundle bundles/c"),
        ([out, "--sanitize", "d", "l1:a"], "no bundle bundles/d"),
        ([out, "--budget", "5m", "l1:a"], "--budget must be a number"),
        ([out, "l1@x:a"], "must be a number"),
        ([out, "l1:"], "round l1 lists no bundle"),
        ([out, "../l1:a"], "a round's name is"),
        ([out, ":a"], "a round's name is"),
        ([out], "usage"),
        ([out, "a,b"], "usage"),
        ([out, "--replays"], "usage"),
    ]
    for args, message in refused:
        result = run(package, bin_dir, *args)
        assert result.returncode == 2, args
        assert message in result.stderr, (args, result.stderr)
    assert not (bin_dir / "calls.txt").exists()
    assert not (tmp_path / "out").exists()


def test_outdir_must_be_empty_and_apart_from_the_package(tmp_path):
    package, bin_dir = make_package(tmp_path)
    for outdir, message in [(package, "holds the package"),
                            (tmp_path, "holds the package"),
                            (package / "bundles" / "a", "is not empty")]:
        result = run(package, bin_dir, str(outdir), "l1:a")
        assert result.returncode == 2, outdir
        assert message in result.stderr
    # An OUTDIR that is a file: refused, and the package untouched.
    (tmp_path / "file").write_text("x")
    assert run(package, bin_dir, str(tmp_path / "file"), "l1:a").returncode == 2
    assert sorted(p.name for p in package.iterdir()) == ["bundles",
                                                         "compare.sh"]
    assert not (bin_dir / "calls.txt").exists()

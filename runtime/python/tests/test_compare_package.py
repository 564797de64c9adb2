"""The package's compare.sh (runtime/compare-package.sh), with a stand-in
for mirage-run and no GPU tools."""

import os
import pathlib
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


def make_package(tmp_path):
    package = tmp_path / "package"
    for name in ("a", "b"):
        (package / "bundles" / name).mkdir(parents=True)
        (package / "bundles" / name / "manifest.json").write_text("{}")
    (package / "compare.sh").write_text(SCRIPT.read_text())
    (package / "compare.sh").chmod(0o755)
    fake = tmp_path / "mirage-run"
    fake.write_text(FAKE_RUN)
    fake.chmod(0o755)
    return package, fake


def run(package, fake, *args):
    env = dict(os.environ, MIRAGE_RUN=str(fake),
               PATH="/usr/bin:/bin")  # no nvidia-smi, no compute-sanitizer
    return subprocess.run([str(package / "compare.sh"), *args], env=env,
                          capture_output=True, text=True)


def test_rounds_run_in_order_and_pack(tmp_path):
    package, fake = make_package(tmp_path)
    out = tmp_path / "out"
    result = run(package, fake, str(out), "--sanitize", "a",
                 "l1:a,b,a", "l36@7:b")
    assert result.returncode == 0, result.stderr
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    assert calls[0].startswith("bundles/a bundles/b bundles/a --modes graph,pdl"
                               " --replays 50 --json")
    assert calls[1].startswith("bundles/b --modes graph,pdl --replays 7")
    # The sanitizers' runs did not reach the stand-in: there is no
    # compute-sanitizer here, and their failures are logged.
    assert len(calls) == 2
    assert [p.name for p in out.iterdir()] == ["res.tgz"]
    with tarfile.open(out / "res.tgz") as packed:
        names = sorted(pathlib.PurePath(n).name for n in packed.getnames())
        times = packed.extractfile("./times.txt").read().decode()
    assert {"l1.json", "l1.log", "l36.json", "l36.log", "memcheck.log",
            "times.txt"} <= set(names)
    # Files over 2 MB (output dumps) are left out.
    assert "outputs.bin" not in names
    lines = times.splitlines()
    assert lines[0].startswith("build at ")
    # The sanitizers first, then the rounds.
    assert lines[1].startswith("memcheck rc=127 at ")
    assert lines[3].startswith("synccheck rc=127 at ")
    assert lines[4].startswith("l1 rc=0 at ")
    assert lines[5].startswith("l36 rc=0 at ")
    assert lines[-1] == "no nvidia-smi"


def test_a_round_with_no_time_left_is_skipped(tmp_path):
    package, fake = make_package(tmp_path)
    out = tmp_path / "out"
    result = run(package, fake, str(out), "--budget", "0", "l1:a")
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "calls.txt").exists()
    with tarfile.open(out / "res.tgz") as packed:
        times = packed.extractfile("./times.txt").read().decode()
    assert "l1 skipped: no time left" in times


def test_unknown_bundles_and_bad_arguments_are_refused(tmp_path):
    package, fake = make_package(tmp_path)
    result = run(package, fake, str(tmp_path / "out"), "l1:a,c")
    assert result.returncode == 2
    assert "no bundle bundles/c" in result.stderr
    result = run(package, fake, str(tmp_path / "out"), "--sanitize", "d",
                 "l1:a")
    assert "no bundle bundles/d" in result.stderr
    assert run(package, fake, str(tmp_path / "out")).returncode == 2
    assert run(package, fake, str(tmp_path / "out"), "a,b").returncode == 2
    assert not (tmp_path / "calls.txt").exists()

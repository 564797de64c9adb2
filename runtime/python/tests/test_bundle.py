"""Reading bundle manifests in the baselines (no PyTorch needed)."""

import json
import pathlib
import re

import pytest

import mirage_baselines as mb


def write_manifest(path, version):
    path.mkdir(exist_ok=True)
    manifest = {
        "format": "mirage-bundle", "version": version, "name": "v",
        "buffers": [
            {"id": 0, "name": "x", "role": "input", "dtype": "f32", "shape": [8]},
            {"id": 1, "name": "y", "role": "output", "dtype": "f32", "shape": [8]}],
        "inputs": [0], "outputs": [1], "kernels": [], "steps": [],
        "inputs_generator": {"kind": "uniform", "seed": 1, "low": -1.0, "high": 1.0},
        "program": None}
    (path / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5])
def test_known_versions_load(tmp_path, version):
    """Versions 2 to 5 add mega-kernel steps (and change their tables) and
    tensor map launch arguments, which the baselines never read."""
    write_manifest(tmp_path / "v", version)
    bundle = mb.Bundle(tmp_path / "v")
    assert bundle.name == "v" and bundle.program is None
    assert bundle.io_bytes() == 64


def test_unknown_versions_are_refused(tmp_path):
    write_manifest(tmp_path / "v", 7)
    with pytest.raises(ValueError, match="unknown manifest version 7"):
        mb.Bundle(tmp_path / "v")


def test_versions_are_the_runtimes():
    """The baselines read exactly the versions mirage-run reads."""
    header = (pathlib.Path(__file__).resolve().parents[2] / "include" /
              "mirage_runtime" / "Manifest.h").read_text()
    def constant(name):
        return int(re.search(rf"{name} = (\d+);", header).group(1))
    assert mb.MANIFEST_VERSIONS == range(constant("oldestManifestVersion"),
                                         constant("manifestVersion") + 1)

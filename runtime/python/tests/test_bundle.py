"""Reading bundle manifests in the baselines (no PyTorch needed)."""

import json

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


@pytest.mark.parametrize("version", [1, 2, 3])
def test_known_versions_load(tmp_path, version):
    """Versions 2 and 3 add mega-kernel steps and tensor map launch
    arguments, which the baselines never read."""
    write_manifest(tmp_path / "v", version)
    bundle = mb.Bundle(tmp_path / "v")
    assert bundle.name == "v" and bundle.program is None
    assert bundle.io_bytes() == 64


def test_unknown_versions_are_refused(tmp_path):
    write_manifest(tmp_path / "v", 5)
    with pytest.raises(ValueError, match="unknown manifest version 5"):
        mb.Bundle(tmp_path / "v")

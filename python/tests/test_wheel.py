"""`pip wheel .` builds an installable package: installed into a fresh
virtual environment, `import mirage_mlir` works from outside the source tree,
builds and runs a program, and declares the torch.compile backend. Then
the README's Python example runs as written, and a torch.compile example
with backend="mirage" runs without importing the backend (the entry point
registers it) and matches eager PyTorch. PyTorch is the test environment's
(scripts/python-env.sh, from PyPI), put on the fresh environment's path
rather than downloaded again (4.6 GB).

The wheel is built as `pip install .` builds it, in build-wheel/; with
CCACHE_BASEDIR at the repository, ccache serves the objects the development
build compiled. scikit-build-core and NumPy come from PyPI. scripts/test.sh
runs this with MIRAGE_TEST_WHEEL=1.
"""

import os
import pathlib
import subprocess
import sys
import venv

import pytest


REPO = pathlib.Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    os.environ.get("MIRAGE_TEST_WHEEL") != "1",
    reason="builds a wheel and a virtual environment (network); "
    "set MIRAGE_TEST_WHEEL=1")

SMOKE = """
import importlib.metadata, pathlib, sys
import numpy as np
import mirage_mlir as mm
assert pathlib.Path(mm.__file__).is_relative_to(sys.prefix), mm.__file__
g = mm.KernelGraph("f")
a, b = g.input([2, 8], "f32"), g.input([8, 3], "f32")
g.output(g.matmul(g.exp(a), b))
x, w = np.random.rand(2, 8), np.random.rand(8, 3)
(out,) = g.to_module().run_reference("f", [x, w])
assert np.abs(out - np.exp(x) @ w).max() < 1e-12
assert "mirage" in importlib.metadata.entry_points(group="torch_dynamo_backends").names
print("ok")
"""


TORCH_COMPILE = """
import pathlib, sys
import torch
import mirage_mlir
assert pathlib.Path(mirage_mlir.__file__).is_relative_to(sys.prefix)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.SiLU(),
                            torch.nn.Linear(32, 8))
x = torch.randn(4, 16)
compiled = torch.compile(model, backend="mirage", dynamic=False,
                         options={"execute": "reference", "cache_dir": None})
with torch.no_grad():
    torch.testing.assert_close(compiled(x), model(x), rtol=1e-5, atol=1e-5)
import mirage_mlir.backend
assert mirage_mlir.backend.last_compilation().fallbacks == {}
print("ok")
"""


def test_wheel_installs_into_a_fresh_environment(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps",
         "--disable-pip-version-check", "-q", "-w", str(wheels)],
        check=True, env={**os.environ, "CCACHE_BASEDIR": str(REPO)})
    (wheel,) = wheels.glob("mirage_mlir-*.whl")
    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run([python, "-m", "pip", "install", "-q",
                    "--disable-pip-version-check", str(wheel)], check=True)
    result = subprocess.run([python, "-c", SMOKE], cwd=tmp_path,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"

    readme = (REPO / "README.md").read_text()
    example = readme.split("```python\n", 1)[1].split("```", 1)[0]
    assert "mm.KernelGraph" in example
    result = subprocess.run([python, "-c", example], cwd=tmp_path,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "kn.rms_norm" in result.stdout and "kn.matmul" in result.stdout

    torch = pytest.importorskip("torch")
    torch_site = pathlib.Path(torch.__file__).resolve().parents[1]
    result = subprocess.run([python, "-c", TORCH_COMPILE], cwd=tmp_path,
                            capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(torch_site)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"

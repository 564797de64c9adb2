#!/usr/bin/env bash
# Creates (or updates) the Python environment the tests use: a virtual
# environment that sees Debian's packages (NumPy, pytest) and adds PyTorch
# from PyPI for the torch.compile backend's tests. Prints its python.
#
#   scripts/python-env.sh [DIR]     (default: $MIRAGE_VENV or build/venv)
#
# PyPI's Linux wheel of torch brings its CUDA libraries: about 4.6 GB
# installed, about a minute to install on the development machine.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${1:-${MIRAGE_VENV:-$root/build/venv}}"
torch_version=2.11.0  # the version of the GPU machines' baselines
if [ ! -x "$venv/bin/python" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$venv" >&2
fi
if ! "$venv/bin/python" -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '$torch_version')" 2>/dev/null; then
  echo "python-env: installing torch $torch_version into $venv" >&2
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "torch==$torch_version" >&2
fi
echo "$venv/bin/python"

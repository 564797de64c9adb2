"""Puts the built mirage_mlir package on the path.

The package is built into <build>/python_packages; the build directory is
$MIRAGE_BUILD_DIR or <repo>/build.
"""

import os
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("MIRAGE_BUILD_DIR", REPO / "build"))
sys.path.insert(0, str(BUILD / "python_packages"))

"""Puts runtime/python (the modules under test) on the path."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

# -*- Python -*-
# Runs the GoogleTest binaries (unittests/*/*Tests) as lit tests.

import os

import lit.formats

config.name = "MIRAGE-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.mirage_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(config.llvm_build_mode, "Tests")
